package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.function.Function;

/**
 * One page of a long list (docs/api.md, "Pagination"): {@code ?offset=O&limit=L} (limit 1–1000,
 * default 100), answered as {@code {"items": [...], "total": N, "offset": O, "limit": L, "next": "..."}}
 * where {@code next} is the query of the following page (the same filters), or absent on the last one. Lists are in a
 * stable order (by name or id), so pages do not overlap while nothing changes.
 */
public final class Page {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private Page() {
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public static <T> JsonObject of(List<T> all, Call call, Function<T, JsonElement> write) {
        int offset = call.number("offset", 0, 0, Integer.MAX_VALUE);
        int limit = call.number("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        JsonArray items = new JsonArray();
        int end = (int) Math.min(all.size(), (long) offset + limit);
        for (int i = offset; i < end; i++) {
            items.add(write.apply(all.get(i)));
        }
        JsonObject o = new JsonObject();
        o.add("items", items);
        o.addProperty("total", all.size());
        o.addProperty("offset", offset);
        o.addProperty("limit", limit);
        if (end < all.size()) {
            Map<String, String> q = new TreeMap<>(call.query());
            q.put("offset", Integer.toString(end));
            q.put("limit", Integer.toString(limit));
            o.addProperty("next", q.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                    .collect(Collectors.joining("&")));
        }
        return o;
    }
}

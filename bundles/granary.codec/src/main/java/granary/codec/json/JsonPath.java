package granary.codec.json;

import granary.api.model.Text;

/**
 * JSON paths as messages show them: {@code $} is the document, {@code .name} a member,
 * {@code [3]} an item: {@code $.units[0].slot.cpu}. A key that is not made of letters, digits,
 * {@code _} and {@code -} is written in brackets and quoted ({@code $.nodeSelector["a b"]}), escaped
 * and cut like every echoed value, so a path never carries raw control characters.
 */
public final class JsonPath {

    public static final String ROOT = "$";

    private JsonPath() {
    }

    public static String member(String parent, String key) {
        return plain(key) ? parent + "." + key : parent + "[" + Text.quote(key) + "]";
    }

    public static String item(String parent, int index) {
        return parent + "[" + index + "]";
    }

    private static boolean plain(String key) {
        if (key.isEmpty() || key.length() > Text.MAX_CHARS) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }
}

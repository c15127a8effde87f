package granary.planner.connect;

import java.net.URI;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.planner.master.ApiError;
import granary.planner.master.MasterClient;

/**
 * The planner's connection to one master (docs/planner.md, "Connecting to a master"): its address and
 * token, checked by reading the master's status; the client every feature that talks to the master
 * uses; and the import of the table in force. Calls run on {@code background}, results reach the
 * properties on {@code ui}.
 */
public final class ConnectionViewModel {

    private final Executor ui;
    private final Executor background;
    private final StringProperty url = new SimpleStringProperty("http://127.0.0.1:7070");
    private final StringProperty token = new SimpleStringProperty("");
    private final ReadOnlyObjectWrapper<MasterClient> client = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper state = new ReadOnlyStringWrapper("not connected");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();

    private final java.time.Clock clock;
    private static final java.time.format.DateTimeFormatter HMS = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss");
    /** A status read in flight: refreshes do not pile up behind a slow master. */
    private boolean refreshing;

    public ConnectionViewModel(Executor ui, Executor background) {
        this(ui, background, java.time.Clock.systemDefaultZone());
    }

    /** @param clock what "as of hh:mm:ss" reads (the planner's time zone) */
    public ConnectionViewModel(Executor ui, Executor background, java.time.Clock clock) {
        this.ui = ui;
        this.background = background;
        this.clock = clock;
    }

    private String now() {
        return java.time.LocalTime.now(clock).format(HMS);
    }

    /**
     * Reads the master's status again (the shell calls it every few seconds), so that the figures in
     * the bar are live: {@code connected: 200 nodes, 42 jobs at 14:02:07, unit order sjf}. A master that stops answering is
     * said so, with when it last answered; the connection is kept (it may come back).
     */
    public void refreshStatus() {
        MasterClient c = client.get();
        if (c == null || busy.get() || refreshing) {
            return;
        }
        refreshing = true;
        String last = lastAnswer;
        try {
            background.execute(() -> refresh(c, last));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            refreshing = false;   // the planner is closing: nothing to read any more
        }
    }

    private void refresh(MasterClient c, String last) {
        String line;
        boolean answered;
        try {
            line = connectedLine(c.api().toString(), c.status());
            answered = true;
        } catch (ApiError e) {
            line = "the master at " + base(c) + " does not answer: " + e.getMessage()
                    + (last == null ? "" : " (it last answered at " + last + ")");
            answered = false;
        }
        String shown = line;
        boolean ok = answered;
        ui.execute(() -> {
            refreshing = false;
            if (client.get() == c) {
                state.set(shown);
                if (ok) {
                    lastAnswer = now();
                }
            }
        });
    }

    private String lastAnswer;

    private static String base(MasterClient c) {
        String api = c.api().toString();
        return api.endsWith("/api/v1") ? api.substring(0, api.length() - "/api/v1".length()) : api;
    }

    /** The master's figures; its address is in the field beside, so the line stays short enough for a laptop's bar. */
    private String connectedLine(String api, JsonObject s) {
        // the live figures first: on a narrow bar the end of the line is what gives way
        return "connected: " + field(s, "nodes") + " nodes, " + field(s, "jobs") + " jobs at " + now() + ", unit order "
                + field(s, "policy.unit-order");
    }

    public StringProperty urlProperty() {
        return url;
    }

    public StringProperty tokenProperty() {
        return token;
    }

    /** The connected master's client, or null. */
    public ReadOnlyObjectProperty<MasterClient> clientProperty() {
        return client.getReadOnlyProperty();
    }

    /** One line: not connected, connecting, connected (with what the master says), or why it failed. */
    public ReadOnlyStringProperty stateProperty() {
        return state.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** Checks the address and the token by reading {@code /status}; the client is set only if that works. */
    public void connect() {
        URI uri;
        String given = url.get() == null ? "" : url.get().trim();
        try {
            uri = URI.create(given);
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
                throw new IllegalArgumentException("not an http(s) address with a host");
            }
        } catch (IllegalArgumentException e) {
            state.set("the master's address '" + given + "' is not a URL such as http://127.0.0.1:7070 (" + e.getMessage() + ")");
            return;
        }
        MasterClient c = new MasterClient(uri, token.get());
        busy.set(true);
        state.set("connecting to " + uri + " ...");
        background.execute(() -> {
            try {
                JsonObject s = c.status();
                String line = connectedLine(uri.toString(), s);
                ui.execute(() -> {
                    lastAnswer = now();
                    client.set(c);
                    state.set(line);
                    busy.set(false);
                });
            } catch (ApiError e) {
                ui.execute(() -> {
                    client.set(null);
                    state.set(e.status() == 401 ? "the master at " + uri + " refused the token (401): issue one with --issue-token=reader/NAME (admin/NAME to push)"
                            : e.describe());
                    busy.set(false);
                });
            }
        });
    }

    public void disconnect() {
        client.set(null);
        state.set("not connected");
    }

    /**
     * Reads the table in force (the read resource of the document the planner edits) and hands it to {@code loaded} on the UI thread;
     * a refusal (no quota policy, no table) goes to {@code failed}.
     */
    public void importTable(Consumer<MasterClient.InForce> loaded, Consumer<String> failed) {
        MasterClient c = client.get();
        if (c == null) {
            failed.accept("not connected to a master: connect first");
            return;
        }
        busy.set(true);
        background.execute(() -> {
            try {
                MasterClient.InForce t = c.table();
                ui.execute(() -> {
                    busy.set(false);
                    loaded.accept(t);
                });
            } catch (ApiError e) {
                ui.execute(() -> {
                    busy.set(false);
                    failed.accept(e.describe());
                });
            }
        });
    }

    /** A field of the master's status as text, or "?" if it has none. */
    private static String field(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "?" : e.getAsString();
    }
}

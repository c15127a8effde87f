package granary.planner.live;

import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import granary.planner.Png;
import granary.planner.live.model.Frame;
import granary.planner.master.MasterClient;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * The live view's frame-time benchmark (benchmarks/planner-frames.sh; benchmarks/RESULTS.md, "Planner live view"):
 * a made-up cluster of 10,000 nodes in 100 rooms whose stream carries 100,000 grants and releases a
 * second (and a sample of a fifth of the nodes' usage every second), served over loopback HTTP by a
 * fake master and read by the real view model and view in a real (headless, Monocle) stage — the
 * same parser, model, coalescer and heatmap as the application. After a warm-up it measures for
 * {@code --seconds}: the heatmap's redraw time (median, p99), frames shown a second, events applied a
 * second, and how far the view lags behind the stream.
 *
 * <pre>--nodes=10000 --rooms=100 --rate=100000 --seconds=20 --warmup=5 --width=1280 --height=800 [--png=view.png]</pre>
 */
public final class FramesBench {

    private FramesBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>(Map.of("nodes", "10000", "rooms", "100", "rate", "100000", "seconds", "20", "warmup", "5",
                "width", "1280", "height", "800", "png", ""));
        for (String a : args) {
            if (!a.startsWith("--") || !a.contains("=") || !o.containsKey(a.substring(2, a.indexOf('=')))) {
                System.err.println("unknown option '" + a + "'; options: " + o.keySet() + " as --name=value");
                System.exit(2);
            }
            o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        int nodes = Integer.parseInt(o.get("nodes"));
        int rooms = Integer.parseInt(o.get("rooms"));
        long rate = Long.parseLong(o.get("rate"));
        int seconds = Integer.parseInt(o.get("seconds"));
        int warmup = Integer.parseInt(o.get("warmup"));
        headless();

        SyntheticStream stream = new SyntheticStream(nodes, rooms, Long.MAX_VALUE, rate, 5000, true, rate);
        try (FakeMaster master = new FakeMaster()) {
            master.on("/api/v1/stream", r -> FakeMaster.Answer.stream(stream));
            master.offeringTableAt("/api/v1/quota");
            master.on("/api/v1/quota", r -> FakeMaster.Answer.json(409, "{\"type\":\"/api/v1/problems/policy-not-installed\",\"status\":409,"
                    + "\"detail\":\"no quota policy in the benchmark\"}"));
            CountDownLatch started = new CountDownLatch(1);
            Platform.startup(started::countDown);
            started.await(10, TimeUnit.SECONDS);
            AtomicReference<LiveViewModel> vmRef = new AtomicReference<>();
            AtomicReference<Stage> stageRef = new AtomicReference<>();
            onFx(() -> {
                LiveViewModel vm = new LiveViewModel(Platform::runLater);
                Stage stage = new Stage();
                stage.setScene(new Scene(new LiveView(vm), Integer.parseInt(o.get("width")), Integer.parseInt(o.get("height"))));
                stage.show();
                stageRef.set(stage);
                vm.connect(new MasterClient(master.uri(), "bench"));
                vmRef.set(vm);
            });
            LiveViewModel vm = vmRef.get();
            Thread.sleep(warmup * 1000L);
            Frame before = frame(vm);
            onFx(() -> vm.frameTimes().clear());
            long framesBefore = vm.frameTimes().count();
            long t0 = System.nanoTime();
            long madeBefore = stream.made();
            Thread.sleep(seconds * 1000L);
            Frame after = frame(vm);
            long t1 = System.nanoTime();
            long made = stream.made();
            double secs = (t1 - t0) / 1e9;
            long framesShown = vm.frameTimes().count() - framesBefore;
            System.out.printf(Locale.ROOT, "FRAMES nodes=%d rooms=%d rate=%d seconds=%.1f: heatmap redraw p50 %.2f ms, p99 %.2f ms, max-kept %.2f ms; "
                            + "%.1f frames/s; events applied %,.0f/s (stream made %,.0f/s); behind the stream at the end: %,d events%n",
                    after.topology().nodeCount(), after.topology().rooms().size(), rate, secs, vm.frameTimes().percentileMillis(50), vm.frameTimes().percentileMillis(99),
                    vm.frameTimes().percentileMillis(100), framesShown / secs, (after.eventsApplied() - before.eventsApplied()) / secs,
                    (made - madeBefore) / secs, Math.max(0, made - after.eventsApplied()));
            if (!o.get("png").isEmpty()) {
                AtomicReference<javafx.scene.image.WritableImage> shot = new AtomicReference<>();
                onFx(() -> shot.set(stageRef.get().getScene().snapshot(null)));
                Png.write(shot.get(), java.nio.file.Path.of(o.get("png")));
                System.out.println("the view at the end: " + o.get("png"));
            }
            onFx(vm::close);
        }
        Platform.exit();
        System.exit(0);
    }

    /** Monocle's headless screen and the software pipeline, unless the command line chose otherwise. */
    private static void headless() {
        Map<String, String> d = Map.of("glass.platform", "Monocle", "monocle.platform", "Headless", "prism.order", "sw", "prism.text", "t2k",
                "java.awt.headless", "true");
        if (!"false".equals(System.getProperty("bench.headless"))) {
            d.forEach((k, v) -> {
                if (System.getProperty(k) == null) {
                    System.setProperty(k, v);
                }
            });
        }
    }

    private static Frame frame(LiveViewModel vm) throws Exception {
        AtomicReference<Frame> f = new AtomicReference<>();
        onFx(() -> f.set(vm.frameProperty().get()));
        if (f.get() == null) {
            throw new IOException("no frame yet: the view model never got the stream (connection: see above)");
        }
        return f.get();
    }

    private static void onFx(Runnable r) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Platform.runLater(() -> {
            try {
                r.run();
            } catch (Throwable t) {
                failed.set(t);
            } finally {
                done.countDown();
            }
        });
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the FX thread did not answer within 30 s");
        }
        if (failed.get() != null) {
            throw new IllegalStateException(failed.get());
        }
    }
}

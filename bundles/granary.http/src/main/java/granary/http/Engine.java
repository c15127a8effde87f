package granary.http;

import granary.api.event.InputEvent;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.model.InvalidRequestException;
import granary.api.spi.EngineView;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The scheduler as the API's routes use it: bounded waits, and the engine's refusals turned into
 * problem JSON (a refused event changed nothing, so neither did the request).
 */
final class Engine {

    private final Scheduler scheduler;
    private final Duration timeout;

    Engine(Scheduler scheduler, Duration timeout) {
        this.scheduler = scheduler;
        this.timeout = timeout;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Reads on the engine thread, between two decisions. */
    <T> T query(Function<? super EngineView, T> read) {
        return await(scheduler.query(read));
    }

    /** Applies an event; a refusal is a 400 listing the engine's problems. */
    Receipt submit(InputEvent event) {
        return await(scheduler.submit(event));
    }

    private <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof ApiException a) {
                throw a;
            }
            if (c instanceof InvalidRequestException r) {
                throw new ApiException(400, "refused", "The scheduler refused the request; nothing changed",
                        r.getMessage(), r.problems());
            }
            throw new ApiException(500, "internal", "The scheduler failed", String.valueOf(c), List.of());
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new ApiException(503, "busy", "The scheduler did not answer in time",
                    "no answer from the engine within " + timeout.toMillis() + " ms; try again", List.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(503, "busy", "The scheduler did not answer in time", "interrupted", List.of());
        }
    }
}

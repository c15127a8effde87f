package granary.sim.workload;

import java.util.List;

import granary.api.model.UnitSpec;

/**
 * One schedule unit of a replayed job: what its job master asks for ({@code spec}), when it asks
 * (simulated milliseconds from the start of the trace), and how long each of its slots runs once
 * granted. A unit with {@code after} names is requested only when those units of the same job have
 * finished (a DAG, as in Alibaba v2018), and not before {@code arrivalMs}.
 *
 * @param spec       the unit as the engine gets it; {@code desired} is the number of tasks (slots)
 * @param arrivalMs  when the job master requests it, ≥ 0
 * @param durationMs how long one slot runs after it is granted, ≥ 0
 * @param after      names of units of the same job that must finish first; empty for none
 */
public record SimUnit(UnitSpec spec, long arrivalMs, long durationMs, List<String> after) {

    public SimUnit {
        after = after == null ? List.of() : List.copyOf(after);
        if (arrivalMs < 0 || durationMs < 0) {
            throw new IllegalArgumentException("unit " + spec.name() + ": negative time (arrival " + arrivalMs
                    + " ms, duration " + durationMs + " ms)");
        }
    }

    public SimUnit(UnitSpec spec, long arrivalMs, long durationMs) {
        this(spec, arrivalMs, durationMs, List.of());
    }

    public String name() {
        return spec.name();
    }
}

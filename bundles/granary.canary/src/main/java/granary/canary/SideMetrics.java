package granary.canary;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.OutputEvent;
import granary.api.event.Revoked;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;

/**
 * What one side (live or shadow) did over a window, measured from the input events both sides see
 * and the decisions of this side (docs/canary.md, "Metrics"): slots granted and revoked per group,
 * each unit's wait from its request to its first slot, the units that waited past the timeout mark,
 * and the time-weighted utilisation of the binding resource. Engine time only: deterministic.
 */
final class SideMetrics {

    /** One unit requested inside the window. */
    private static final class Wait {
        final UnitId id;
        final String group;
        final long requested;
        long first = -1;
        boolean gone;
        boolean timedOut;

        Wait(UnitId id, String group, long requested) {
            this.id = id;
            this.group = group;
            this.requested = requested;
        }
    }

    private final long timeoutMillis;
    private final long start;
    private long last;
    private double utilisationNow;
    private double utilisationSum;
    private long end = -1;
    private final Map<String, Long> grants = new TreeMap<>();
    private final Map<String, Long> revocations = new TreeMap<>();
    private final Map<String, Long> timeouts = new TreeMap<>();
    private final Map<UnitId, Wait> waits = new HashMap<>();
    /** Waits in request order (engine time only grows): the head is the next to cross the mark. */
    private final Deque<Wait> pending = new ArrayDeque<>();

    SideMetrics(long start, long timeoutMillis, EngineView view) {
        this.start = start;
        this.last = start;
        this.timeoutMillis = timeoutMillis;
        this.utilisationNow = utilisation(view);
    }

    /** After one input event: its requests, then this side's decisions for it, then the clock. */
    void observe(InputEvent e, EngineView view, List<OutputEvent> decisions, long now) {
        if (end >= 0) {
            return;
        }
        requests(e, view, now);
        for (OutputEvent o : decisions) {
            if (o instanceof Granted g) {
                String group = group(g.unit(), view);
                grants.merge(group, (long) g.slots(), Long::sum);
                Wait w = waits.get(g.unit());
                if (w != null && w.first < 0) {
                    w.first = now;
                    if (now - w.requested > timeoutMillis) {
                        timedOut(w);
                    }
                }
            } else if (o instanceof Revoked r) {
                revocations.merge(group(r.unit(), view), (long) r.slots(), Long::sum);
            }
        }
        advance(now, view);
    }

    /** Stops measuring: values read later are those at {@code now}. */
    void freeze(long now, EngineView view) {
        if (end < 0) {
            advance(now, view);
            end = now;
        }
    }

    private void requests(InputEvent e, EngineView view, long now) {
        if (e instanceof JobSubmitted s) {
            job(s.job(), view, now);
        } else if (e instanceof JobsSubmitted s) {
            s.jobs().forEach(j -> job(j, view, now));
        } else if (e instanceof UnitRequested r) {
            unit(new UnitId(r.job(), r.unit().name()), r.unit(), view, now);
        } else if (e instanceof UnitCancelled c) {
            gone(c.unit());
        } else if (e instanceof JobCancelled c) {
            waits.values().stream().filter(w -> w.id.job().equals(c.job())).forEach(w -> w.gone = true);
        } else if (e instanceof UnitDesireChanged d) {
            UnitView u = view.unit(d.unit());
            Wait w = waits.get(d.unit());
            if (w != null && w.first < 0 && (u == null || u.remaining() == 0)) {
                w.gone = true;   // it no longer waits for anything
            }
        }
    }

    private void job(JobSpec job, EngineView view, long now) {
        for (UnitSpec u : job.units()) {
            unit(new UnitId(job.id(), u.name()), u, view, now);
        }
    }

    private void unit(UnitId id, UnitSpec spec, EngineView view, long now) {
        if (spec.desired() > 0 && !waits.containsKey(id)) {
            UnitView u = view.unit(id);
            Wait w = new Wait(id, u == null ? "(refused)" : u.group(), now);
            waits.put(id, w);
            pending.addLast(w);
        }
    }

    private void gone(UnitId id) {
        Wait w = waits.get(id);
        if (w != null) {
            w.gone = true;
        }
    }

    private String group(UnitId id, EngineView view) {
        Wait w = waits.get(id);
        if (w != null) {
            return w.group;
        }
        UnitView u = view.unit(id);
        return u == null ? "(gone)" : u.group();
    }

    private void advance(long now, EngineView view) {
        while (!pending.isEmpty() && now - pending.peekFirst().requested > timeoutMillis) {
            Wait w = pending.pollFirst();
            if (w.first < 0 && !w.gone) {
                timedOut(w);
            }
        }
        utilisationSum += utilisationNow * (now - last);
        last = now;
        utilisationNow = utilisation(view);
    }

    private void timedOut(Wait w) {
        if (!w.timedOut) {
            w.timedOut = true;
            timeouts.merge(w.group, 1L, Long::sum);
        }
    }

    private static double utilisation(EngineView view) {
        var cluster = view.cluster();
        return cluster.capacity().isZero() ? 0 : cluster.granted().dominantShare(cluster.capacity());
    }

    /** Engine time when measuring began. */
    long elapsedStart() {
        return start;
    }

    /** Engine time measured, ms. */
    long elapsed(long now) {
        return (end >= 0 ? end : now) - start;
    }

    /** The value over the whole side (group null) or one group; utilisation has no per-group value. */
    double value(Metric m, String group, long now) {
        long at = end >= 0 ? end : now;
        return switch (m) {
            case GRANTS -> sum(grants, group);
            case REVOCATIONS -> sum(revocations, group);
            case TIMEOUTS -> sum(timeouts, group);
            case WAIT_P50 -> percentile(group, at, 50);
            case WAIT_P90 -> percentile(group, at, 90);
            case UTILISATION -> group != null ? Double.NaN
                    : at == last ? (at == start ? utilisationNow : utilisationSum / (at - start))
                    : (utilisationSum + utilisationNow * (at - last)) / (at - start);
        };
    }

    /** Every group with a request, a grant or a revocation, sorted. */
    java.util.SortedSet<String> groups() {
        java.util.SortedSet<String> all = new java.util.TreeSet<>(grants.keySet());
        all.addAll(revocations.keySet());
        waits.values().forEach(w -> all.add(w.group));
        return all;
    }

    private static double sum(Map<String, Long> perGroup, String group) {
        if (group != null) {
            return perGroup.getOrDefault(group, 0L);
        }
        return perGroup.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Nearest rank; a unit still waiting counts with its wait so far; NaN without a unit. */
    private double percentile(String group, long at, int p) {
        List<Long> values = new ArrayList<>();
        for (Wait w : waits.values()) {
            if (group != null && !group.equals(w.group)) {
                continue;
            }
            if (w.first >= 0) {
                values.add(w.first - w.requested);
            } else if (!w.gone) {
                values.add(at - w.requested);
            }
        }
        if (values.isEmpty()) {
            return Double.NaN;
        }
        values.sort(null);
        int rank = (int) Math.ceil(p / 100.0 * values.size());
        return values.get(Math.max(0, rank - 1));
    }
}

package granary.policy.reservation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Section;
import granary.api.spi.PolicyDeclaration;

/**
 * What the reservation policy shows operators, as part of its declaration: the report
 * {@code reservations} (target, its wait, the locked nodes, progress), or {@code no reservation}.
 */
final class ReservationReporting {

    private ReservationReporting() {
    }

    static void declare(PolicyDeclaration.Builder<ReservationPolicy> b) {
        b.report("reservations", "the reservation against starvation in force: target, its wait, the locked nodes, "
                + "and progress (locked capacity against what the target still needs); 'no reservation' when none",
                (p, v) -> reservations(p.reservation(v)));
    }

    /** One field per line: target, waited, locked_nodes, locked_capacity, needed, progress, expires_in. */
    static Report reservations(ReservationReport r) {
        if (r.target() == null) {
            return Report.message("no reservation");
        }
        String nodes = (r.lockedNodes().isEmpty() ? "-" : String.join(",", r.lockedNodes()))
                + " (" + r.lockedNodes().size() + " of " + r.plannedNodes() + " planned)";
        return Report.of(Section.fields("reservation",
                Cell.of("target", r.target()),
                Cell.of("waited", r.waitedMillis()).shownAs(seconds(r.waitedMillis())),
                Cell.of("locked_nodes", String.join(",", r.lockedNodes())).shownAs(nodes),
                Cell.of("locked_capacity", r.lockedCapacity()),
                Cell.of("needed", r.needed()),
                Cell.of("progress", progress(r.lockedCapacity(), r.needed())),
                Cell.of("expires_in", r.expiresInMillis()).shownAs(r.expiresInMillis() < 0 ? "never" : seconds(r.expiresInMillis()))));
    }

    /**
     * How much of the need the locked capacity covers, in the resource where it covers least:
     * {@code 57% (locked cpu 400 of 700 needed)}; 100% once every resource is covered.
     */
    static String progress(Resources locked, Resources needed) {
        String worst = null;
        double share = 1;
        List<String> names = new ArrayList<>(List.of("cpu", "mem"));
        names.addAll(needed.extended().keySet());
        for (String r : names) {
            long need = needed.get(r);
            if (need > 0) {
                double s = Math.min(1, (double) locked.get(r) / need);
                if (worst == null || s < share) {
                    worst = r;
                    share = s;
                }
            }
        }
        if (worst == null) {
            return "100%";
        }
        return (int) Math.floor(share * 100) + "% (locked " + worst + " " + locked.get(worst) + " of " + needed.get(worst)
                + " needed)";
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}

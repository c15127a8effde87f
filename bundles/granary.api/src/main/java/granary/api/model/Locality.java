package granary.api.model;

/**
 * One locality preference of a unit (docs/model.md, "Jobs and schedule units"): up to {@code count} slots at {@code level} on
 * {@code target}. MACHINE names a node, ROOM names a room; CLUSTER has no target.
 */
public record Locality(Level level, String target, int count) {

    /** Locality levels in preference order: MACHINE before ROOM before CLUSTER. */
    public enum Level { MACHINE, ROOM, CLUSTER }

    public Locality {
        Checks c = new Checks("locality " + level + (target == null ? "" : ":" + target));
        c.check(level != null, "level", "is missing; one of MACHINE, ROOM, CLUSTER");
        if (level == Level.CLUSTER) {
            c.check(target == null || target.isEmpty() || "*".equals(target), "target",
                    "a CLUSTER preference takes no target, got '" + Text.escape(target) + "'");
            target = null;
        } else if (level != null) {
            c.name("target", target);
        }
        c.atLeast("count", count, 1).done();
    }

    public static Locality machine(String node, int count) {
        return new Locality(Level.MACHINE, node, count);
    }

    public static Locality room(String room, int count) {
        return new Locality(Level.ROOM, room, count);
    }

    public static Locality cluster(int count) {
        return new Locality(Level.CLUSTER, null, count);
    }

    @Override
    public String toString() {
        return (level == Level.CLUSTER ? "C" : level.name().charAt(0) + ":" + target) + "x" + count;
    }
}

package granary.api.model;

/**
 * Identity of a schedule unit: its job and its name within the job. Text form {@code job/unit}.
 */
public record UnitId(String job, String unit) implements Comparable<UnitId> {

    public UnitId {
        if (job == null || unit == null) {
            throw new InvalidRequestException("unit id", job == null ? "job" : "unit", "is missing");
        }
    }

    /** Parses {@code job/unit}. */
    public static UnitId parse(String text) {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new InvalidRequestException("unit id", "id", "'" + Text.escape(text) + "' is not of the form job/unit");
        }
        return new UnitId(text.substring(0, slash), text.substring(slash + 1));
    }

    @Override
    public int compareTo(UnitId o) {
        int c = job.compareTo(o.job);
        return c != 0 ? c : unit.compareTo(o.unit);
    }

    @Override
    public String toString() {
        return job + "/" + unit;
    }
}

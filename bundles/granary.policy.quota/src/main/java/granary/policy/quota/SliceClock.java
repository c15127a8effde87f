package granary.policy.quota;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/** Engine time → hour of day, day, and the next hour boundary, in the policy's time zone. */
final class SliceClock {

    private final ZoneId zone;

    SliceClock(ZoneId zone) {
        this.zone = zone;
    }

    int hour(long millis) {
        return time(millis).getHour();
    }

    LocalDate day(long millis) {
        return time(millis).toLocalDate();
    }

    /** The first hour boundary strictly after {@code millis}. */
    long nextHour(long millis) {
        return time(millis).truncatedTo(ChronoUnit.HOURS).plusHours(1).toInstant().toEpochMilli();
    }

    private ZonedDateTime time(long millis) {
        return Instant.ofEpochMilli(millis).atZone(zone);
    }
}

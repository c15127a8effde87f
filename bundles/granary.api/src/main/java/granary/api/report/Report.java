package granary.api.report;

import java.util.List;

/**
 * What a policy reports, as data: sections of labelled values. A report with no sections is just
 * its {@code message} ({@code no reservation}, {@code quota table: 2 slices, ...}).
 *
 * @param message  a sentence for the operator shown before the sections, or null
 * @param sections the parts, in order
 */
public record Report(String message, List<Section> sections) {

    public Report {
        sections = List.copyOf(sections);
    }

    public static Report of(Section... sections) {
        return new Report(null, List.of(sections));
    }

    /** A report that is only a message (one line, or several separated by newlines). */
    public static Report message(String text) {
        return new Report(text, List.of());
    }

    /** The section of that name, or null. */
    public Section section(String name) {
        for (Section s : sections) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }
}

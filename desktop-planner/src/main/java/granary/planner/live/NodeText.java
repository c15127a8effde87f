package granary.planner.live;

import java.util.Locale;

import granary.planner.live.model.Frame;

/** Nodes and amounts in words with their units (cpu in cores from the API's 1/100 cores, memory in MiB). */
public final class NodeText {

    private NodeText() {
    }

    /** A node as its tooltip and the status line show it: name, room, granted of capacity per resource with units. */
    public static String of(Frame f, int i, String room) {
        return String.format(Locale.ROOT, "%s in room %s: %.0f%% granted (the larger of cpu and memory)%n"
                        + "cpu %s of %s cores, memory %,d of %,d MiB%n%d slots granted since the snapshot%s",
                f.topology().names()[i], room, 100 * f.utilisation(i), cores(f.grantedCpu(i)), cores(f.capacityCpu(i)),
                f.grantedMem(i), f.capacityMem(i), f.slots(i), f.blacklisted(i) ? "\nblacklisted: nothing new is placed on it" : "");
    }

    /** cpu in 1/100 cores as cores: {@code 12.5}, {@code 64}. */
    public static String cores(long hundredths) {
        return hundredths % 100 == 0 ? String.format(Locale.ROOT, "%,d", hundredths / 100)
                : String.format(Locale.ROOT, "%,.2f", hundredths / 100.0).replaceAll("0$", "");
    }
}

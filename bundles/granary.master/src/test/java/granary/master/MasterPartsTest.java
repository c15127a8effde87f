package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The master's parts form layers (docs/architecture.md, "The master's loop"): each holds only parts
 * before it in {@link #ORDER}, so none calls back up, and none keeps state of its own — what the
 * master knows is in the {@link MasterBook} they share. Split along its sections without this, the
 * master made a cycle of eight files.
 */
class MasterPartsTest {

    private static final List<Class<?>> ORDER = List.of(Delivery.class, Mirrors.class, Restarting.class,
            Recovering.class, AgentHandler.class, RequestHandler.class, Timeouts.class, MasterStatus.class);

    @Test
    void everyPartUsesOnlyThePartsBeforeIt() {
        List<String> upward = new ArrayList<>();
        for (int i = 0; i < ORDER.size(); i++) {
            for (Field f : ORDER.get(i).getDeclaredFields()) {
                int at = ORDER.indexOf(f.getType());
                if (at >= i) {
                    upward.add(ORDER.get(i).getSimpleName() + "." + f.getName() + " holds " + f.getType().getSimpleName());
                }
            }
        }
        assertEquals(List.of(), upward, "a part holds a part at or after it in the order");
    }

    @Test
    void thePartsKeepNoStateOfTheirOwn() {
        List<String> state = new ArrayList<>();
        for (Class<?> part : ORDER) {
            assertTrue(MasterPart.class.isAssignableFrom(part), part + " is a part over the shared book");
            for (Field f : part.getDeclaredFields()) {
                boolean constant = Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers());
                if (!constant && !Modifier.isFinal(f.getModifiers())) {
                    state.add(part.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertEquals(List.of(), state, "fields a part changes: they belong in MasterBook");
    }

    @Test
    void everyPartOfThePackageIsInTheOrder() {
        // a new part must take its place in the layers, not sit beside them
        for (Field f : ProtocolMaster.class.getDeclaredFields()) {
            if (MasterPart.class.isAssignableFrom(f.getType())) {
                assertTrue(ORDER.contains(f.getType()), f.getType().getSimpleName() + " is not in MasterPartsTest.ORDER");
            }
        }
    }
}

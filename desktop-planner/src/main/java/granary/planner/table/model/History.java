package granary.planner.table.model;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Undo and redo over immutable drafts: each step keeps the draft before it. Bounded, so a long
 * session of drags does not grow without end; the oldest steps are dropped first.
 */
public final class History {

    private final int limit;
    private final Deque<Draft> undo = new ArrayDeque<>();
    private final Deque<Draft> redo = new ArrayDeque<>();

    public History(int limit) {
        this.limit = limit;
    }

    /** Records that the draft was {@code before} until now; what was undone cannot be redone any more. */
    public void record(Draft before) {
        undo.push(before);
        if (undo.size() > limit) {
            undo.removeLast();
        }
        redo.clear();
    }

    /** The draft before {@code current}; {@code current} becomes redoable. */
    public Draft undo(Draft current) {
        if (undo.isEmpty()) {
            throw new IllegalStateException("nothing to undo");
        }
        redo.push(current);
        return undo.pop();
    }

    /** The draft undone last; {@code current} becomes undoable again. */
    public Draft redo(Draft current) {
        if (redo.isEmpty()) {
            throw new IllegalStateException("nothing to redo");
        }
        undo.push(current);
        return redo.pop();
    }

    public boolean canUndo() {
        return !undo.isEmpty();
    }

    public boolean canRedo() {
        return !redo.isEmpty();
    }
}

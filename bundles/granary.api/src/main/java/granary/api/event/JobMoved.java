package granary.api.event;

/**
 * An operator moves a job to another group queue, named by full path (or a name the group resolver
 * accepts). Its grants stay; its usage and its waiting units move with it.
 */
public record JobMoved(String job, String group) implements InputEvent {
}

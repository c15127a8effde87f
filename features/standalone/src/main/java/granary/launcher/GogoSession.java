package granary.launcher;

import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * A Gogo command session driven from outside the framework. The Gogo API lives in the Gogo runtime
 * bundle, not on the launcher's class path, so the session is used by reflection through that
 * bundle's API classes; this keeps the launcher identical on Felix and Equinox.
 */
public final class GogoSession implements AutoCloseable {

    static final String PROCESSOR = "org.apache.felix.service.command.CommandProcessor";
    static final String SESSION = "org.apache.felix.service.command.CommandSession";
    /** {@code Converter.INSPECT}: the detailed form, as the Gogo shell prints a result. */
    private static final int INSPECT = 0;

    private final BundleContext context;
    private final ServiceReference<?> ref;
    private final Object session;
    private final Method execute;
    private final Method format;
    private final Method close;
    private final Method put;

    private GogoSession(BundleContext context, ServiceReference<?> ref, Object session, Class<?> type)
            throws NoSuchMethodException {
        this.context = context;
        this.ref = ref;
        this.session = session;
        this.execute = type.getMethod("execute", CharSequence.class);
        this.format = type.getMethod("format", Object.class, int.class);
        this.close = type.getMethod("close");
        this.put = type.getMethod("put", String.class, Object.class);
    }

    /**
     * Opens a session on the {@code CommandProcessor} service.
     *
     * @param in  what commands read as their input (give an empty stream so they never read the launcher's)
     * @param out where commands print
     * @param err where commands print errors
     * @throws IllegalStateException if there is no CommandProcessor service
     */
    public static GogoSession open(BundleContext context, InputStream in, PrintStream out, PrintStream err) {
        ServiceReference<?> ref = Container.service(context, PROCESSOR);
        Object processor = ref == null ? null : context.getService(ref);
        if (processor == null) {
            throw new IllegalStateException("no Gogo CommandProcessor service (is org.apache.felix.gogo.runtime active?)");
        }
        try {
            Bundle gogo = ref.getBundle();
            Object session = gogo.loadClass(PROCESSOR)
                    .getMethod("createSession", InputStream.class, java.io.OutputStream.class, java.io.OutputStream.class)
                    .invoke(processor, in, out, err);
            return new GogoSession(context, ref, session, gogo.loadClass(SESSION));
        } catch (InvocationTargetException e) {
            context.ungetService(ref);
            throw new IllegalStateException("Gogo refused a session: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            context.ungetService(ref);
            throw new IllegalStateException("Gogo API not usable: " + e, e);
        }
    }

    /**
     * Runs one command line.
     *
     * @return the command's result (null if none)
     * @throws Exception what the command threw, e.g. "Command not found: x"
     */
    public Object execute(String commandLine) throws Exception {
        try {
            return execute.invoke(session, commandLine);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** A result as text, as the Gogo shell prints it; null for no result. */
    public String format(Object result) {
        if (result == null) {
            return null;
        }
        if (result instanceof CharSequence text) {
            return text.toString();
        }
        try {
            Object text = format.invoke(session, result, INSPECT);
            return text == null ? String.valueOf(result) : text.toString();
        } catch (ReflectiveOperationException e) {
            return String.valueOf(result);
        }
    }

    /** Sets a session variable, as {@code name = value} typed at the prompt would, without a result. */
    public void put(String name, Object value) {
        try {
            put.invoke(session, name, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Gogo API not usable: " + e, e);
        }
    }

    /** Runs a command and returns its result as text ("" for none). */
    public String run(String commandLine) throws Exception {
        String text = format(execute(commandLine));
        return text == null ? "" : text;
    }

    @Override
    public void close() {
        try {
            close.invoke(session);
        } catch (ReflectiveOperationException e) {
            // the framework is stopping: the session goes with it
        } finally {
            try {
                context.ungetService(ref);
            } catch (RuntimeException e) {
                // context no longer valid
            }
        }
    }

    /** The message of a failed command, for "Error: ..." lines. */
    public static String message(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}

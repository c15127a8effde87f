package granary.conformance;

import granary.protocol.disk.Disk;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A simulated directory that survives its process (a node's disk, a job master's state directory)
 * and breaks on demand: a file torn (cut short), a bit flipped, a file lost, the disk refusing
 * writes for a while. What the shipped code must do with each: say so and lose nothing accepted.
 */
final class SimDisk implements Disk {

    private final String name;
    private final World world;
    private final Map<String, byte[]> files = new TreeMap<>();
    private long unwritableUntil;

    SimDisk(String name, World world) {
        this.name = name;
        this.world = world;
    }

    @Override
    public byte[] read(String file) {
        byte[] b = files.get(file);
        return b == null ? null : b.clone();
    }

    @Override
    public void replace(String file, byte[] data, boolean durable) throws IOException {
        if (world.now() < unwritableUntil) {
            throw new IOException("no space left on device (simulated: " + where(file) + " refuses writes until t="
                    + world.rel(unwritableUntil) + "ms)");
        }
        files.put(file, data.clone());
    }

    @Override
    public void move(String from, String to) throws IOException {
        byte[] b = files.remove(from);
        if (b == null) {
            throw new IOException(where(from) + ": no such file");
        }
        files.put(to, b);
    }

    @Override
    public void delete(String file) {
        files.remove(file);
    }

    @Override
    public List<String> list(String suffix) {
        List<String> out = new ArrayList<>();
        files.keySet().stream().filter(n -> n.endsWith(suffix)).forEach(out::add);
        return out;
    }

    @Override
    public String where(String file) {
        return "sim:/" + name + "/" + file;
    }

    /** Writes {@code file} unless the disk refuses (a run record: the worker runs all the same). */
    void replaceQuietly(String file, byte[] data) {
        try {
            replace(file, data, false);
        } catch (IOException ex) {
            // as OsLauncher: only a restart of the agent would miss it
        }
    }

    boolean has(String file) {
        return files.containsKey(file);
    }

    List<String> names() {
        return new ArrayList<>(files.keySet());
    }

    /** Cuts {@code file} short at a random length; false if there is no such file. */
    boolean tear(String file, Random r) {
        byte[] b = files.get(file);
        if (b == null || b.length == 0) {
            return false;
        }
        byte[] cut = new byte[r.nextInt(b.length)];
        System.arraycopy(b, 0, cut, 0, cut.length);
        files.put(file, cut);
        return true;
    }

    /** Flips one random bit of {@code file}; false if there is no such file. */
    boolean flip(String file, Random r) {
        byte[] b = files.get(file);
        if (b == null || b.length == 0) {
            return false;
        }
        b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        return true;
    }

    /** Loses {@code file}; false if there was none. */
    boolean lose(String file) {
        return files.remove(file) != null;
    }

    /** Writes fail until {@code until}. */
    void unwritable(long until) {
        unwritableUntil = Math.max(unwritableUntil, until);
    }
}

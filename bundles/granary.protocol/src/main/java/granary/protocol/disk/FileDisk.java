package granary.protocol.disk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/** A {@link Disk} on one directory of the file system (created when first written). */
public final class FileDisk implements Disk {

    private final Path dir;

    public FileDisk(Path dir) {
        this.dir = dir.toAbsolutePath();
    }

    public Path dir() {
        return dir;
    }

    @Override
    public byte[] read(String name) throws IOException {
        try {
            return Files.readAllBytes(file(name));
        } catch (NoSuchFileException ex) {
            return null;
        }
    }

    @Override
    public void replace(String name, byte[] data, boolean durable) throws IOException {
        Files.createDirectories(dir);
        Path f = file(name);
        Path tmp = dir.resolve(name + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            if (durable) {
                ch.force(true);
            }
        }
        Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (durable) {
            forceDirectory();
        }
    }

    /** Forces the rename to disk; some platforms cannot open a directory, where the rename is as durable as it gets. */
    private void forceDirectory() {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ex) {
            // not supported here (e.g. Windows): nothing more to do
        }
    }

    @Override
    public void move(String from, String to) throws IOException {
        Files.move(file(from), file(to), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void delete(String name) throws IOException {
        Files.deleteIfExists(file(name));
    }

    @Override
    public List<String> list(String suffix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix)).sorted().toList();
        }
    }

    @Override
    public String where(String name) {
        return file(name).toString();
    }

    private Path file(String name) {
        if (name.isEmpty() || name.contains("/") || name.contains("\\") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a plain file name: '" + name + "'");
        }
        return dir.resolve(name);
    }
}

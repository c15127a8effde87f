package granary.planner.whatif;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.DeflaterOutputStream;

import javafx.scene.image.Image;
import javafx.scene.image.PixelReader;

/**
 * Writes a JavaFX image as a PNG, so that a headless test's screen can be looked at (javafx-swing,
 * which has SwingFXUtils and ImageIO's writer, is not on the class path): 8-bit RGBA, no filter.
 */
final class PngFile {

    private PngFile() {
    }

    static void write(Image image, Path file) throws IOException {
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        PixelReader px = image.getPixelReader();
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(raw)) {
            byte[] row = new byte[1 + 4 * w];   // filter type 0, then RGBA per pixel
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int argb = px.getArgb(x, y);
                    row[1 + 4 * x] = (byte) (argb >> 16);
                    row[2 + 4 * x] = (byte) (argb >> 8);
                    row[3 + 4 * x] = (byte) argb;
                    row[4 + 4 * x] = (byte) (argb >>> 24);
                }
                z.write(row);
            }
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(png);
        out.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        DataOutputStream hd = new DataOutputStream(header);
        hd.writeInt(w);
        hd.writeInt(h);
        hd.write(new byte[] {8, 6, 0, 0, 0});   // 8 bits, RGBA, deflate, no filter method, no interlace
        chunk(out, "IHDR", header.toByteArray());
        chunk(out, "IDAT", raw.toByteArray());
        chunk(out, "IEND", new byte[0]);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, png.toByteArray());
    }

    private static void chunk(DataOutputStream out, String type, byte[] data) throws IOException {
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        out.writeInt(data.length);
        out.write(t);
        out.write(data);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        out.writeInt((int) crc.getValue());
    }
}

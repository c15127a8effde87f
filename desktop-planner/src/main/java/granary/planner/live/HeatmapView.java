package granary.planner.live;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import granary.planner.live.model.Frame;
import granary.planner.live.model.Topology;
import javafx.geometry.Point2D;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Tooltip;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.layout.Pane;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/**
 * The nodes as a heatmap: one cell per node, grouped by room into labelled blocks, coloured by
 * utilisation on the viridis scale (dark purple idle, teal half, yellow full; grey blacklisted). A redraw is one pass over the
 * frame's arrays into an ARGB buffer, then one image onto the canvas: no node object, no shape per
 * node, so 10,000 nodes redraw in a few milliseconds. Room labels are on a second canvas drawn only
 * when the layout changes. Hovering shows a node's name and usage; clicking selects it.
 */
public final class HeatmapView extends Pane {

    /**
     * Viridis at 0, 0.1, ..., 1: a sequential palette whose lightness rises steadily from dark purple
     * to yellow, readable with every common colour-vision deficiency and in grey.
     */
    private static final Color[] VIRIDIS = {
        Color.web("#440154"), Color.web("#482475"), Color.web("#414487"), Color.web("#355f8d"), Color.web("#2a788e"),
        Color.web("#21918c"), Color.web("#22a884"), Color.web("#44bf70"), Color.web("#7ad151"), Color.web("#bddf26"),
        Color.web("#fde725")};

    /** Colours of utilisation 0 %, 1 %, ..., 100 %, as ARGB. */
    private static final int[] SCALE = new int[101];
    private static final int BLACKLISTED = argb(Color.web("#6b6b6b"));
    private static final int BACKGROUND = argb(Color.web("#1e1e1e"));
    private static final int ROOM = argb(Color.web("#2c2c2c"));
    private static final int HEADER = 14;
    private static final int PAD = 3;

    static {
        for (int p = 0; p <= 100; p++) {
            SCALE[p] = argb(colour(p / 100.0));
        }
    }

    /** The colour of utilisation {@code u} (0-1) on the viridis scale: dark purple idle, teal half, yellow full. */
    public static Color colour(double u) {
        double x = Math.max(0, Math.min(1, u)) * (VIRIDIS.length - 1);
        int k = Math.min(VIRIDIS.length - 2, (int) Math.floor(x));
        return VIRIDIS[k].interpolate(VIRIDIS[k + 1], x - k);
    }

    private static int argb(Color c) {
        return 0xff000000 | (int) Math.round(c.getRed() * 255) << 16 | (int) Math.round(c.getGreen() * 255) << 8 | (int) Math.round(c.getBlue() * 255);
    }

    private final Canvas cells = new Canvas();
    private final Canvas labels = new Canvas();
    private final Tooltip tip = new Tooltip();
    private final LongConsumer drawn;
    private Frame frame;

    // the layout, for one topology and one size
    private Topology laidOut;
    private int width;
    private int height;
    private int cell;
    private int[] cellX = new int[0];
    private int[] cellY = new int[0];
    private int[] base = new int[0];
    private int[] pixels = new int[0];
    /** The canvas's image: its pixels are {@link #buffer}, written in place (no per-frame conversion). */
    private WritableImage image;
    private PixelBuffer<IntBuffer> buffer;
    private int[] roomX;
    private int[] roomY;
    private int[] roomCols;
    private int blockW;
    private int blockH;

    /**
     * @param drawn    told each redraw's duration in ns (the frame-time figures)
     * @param selected told the name of a node clicked
     */
    public HeatmapView(LongConsumer drawn, Consumer<String> selected) {
        this.drawn = drawn;
        cells.setId("heatmap");
        labels.setMouseTransparent(true);
        getChildren().addAll(cells, labels);
        setMinSize(120, 80);
        setPrefSize(900, 600);
        Tooltip.install(cells, tip);
        cells.setOnMouseMoved(e -> {
            int i = nodeAt(e.getX(), e.getY());
            tip.setText(i < 0 ? "" : describe(i));
        });
        cells.setOnMouseClicked(e -> {
            int i = nodeAt(e.getX(), e.getY());
            if (i >= 0) {
                selected.accept(frame.topology().names()[i]);
            }
        });
        widthProperty().addListener(o -> redraw());
        heightProperty().addListener(o -> redraw());
    }

    @Override
    protected void layoutChildren() {
        // the canvases are sized in redraw(), to whole pixels
    }

    /** Shows {@code f} (the latest frame). */
    public void show(Frame f) {
        frame = f;
        redraw();
    }

    /** The node index at a point of the canvas, or -1. */
    public int nodeAt(double x, double y) {
        if (frame == null || laidOut != frame.topology() || blockW <= 0 || blockH <= 0 || cell <= 0) {
            return -1;
        }
        List<Topology.Room> rooms = laidOut.rooms();
        int bc = Math.max(1, width / blockW);
        int r = ((int) y / blockH) * bc + (int) x / blockW;
        if (x < 0 || y < 0 || r < 0 || r >= rooms.size() || (int) x / blockW >= bc) {
            return -1;
        }
        int col = (int) (x - roomX[r]) / cell;
        int row = (int) (y - roomY[r]) / cell;
        if (x < roomX[r] || y < roomY[r] || col >= roomCols[r]) {
            return -1;
        }
        int k = row * roomCols[r] + col;
        int[] nodes = rooms.get(r).nodes();
        return k < nodes.length ? nodes[k] : -1;
    }

    /** The centre of node {@code name}'s cell on the canvas, or null if it is not drawn. */
    public Point2D cellCentre(String name) {
        int i = frame == null ? -1 : frame.topology().indexOf(name);
        if (i < 0 || laidOut != frame.topology() || i >= cellX.length || cellX[i] < 0) {
            return null;
        }
        return new Point2D(cellX[i] + cell / 2.0, cellY[i] + cell / 2.0);
    }

    private String describe(int i) {
        Frame f = frame;
        return NodeText.of(f, i, roomOf(i));
    }

    String roomOf(int i) {
        for (Topology.Room r : frame.topology().rooms()) {
            for (int n : r.nodes()) {
                if (n == i) {
                    return r.name();
                }
            }
        }
        return "?";
    }

    private void redraw() {
        int w = (int) Math.floor(getWidth());
        int h = (int) Math.floor(getHeight());
        if (frame == null || w <= 0 || h <= 0) {
            return;
        }
        long t0 = System.nanoTime();
        if (laidOut != frame.topology() || w != width || h != height) {
            layout(frame.topology(), w, h);
        }
        System.arraycopy(base, 0, pixels, 0, pixels.length);
        int size = cell >= 4 ? cell - 1 : cell; // a 1-pixel gap between cells large enough to spare it
        Frame f = frame;
        for (Topology.Room r : laidOut.rooms()) {
            for (int i : r.nodes()) {
                int colour = f.blacklisted(i) ? BLACKLISTED : SCALE[(int) Math.round(f.utilisation(i) * 100)];
                int x0 = cellX[i];
                int y0 = cellY[i];
                if (x0 < 0) {
                    continue; // no room for it at this size
                }
                for (int y = y0, yEnd = Math.min(height, y0 + size); y < yEnd; y++) {
                    int row = y * width;
                    java.util.Arrays.fill(pixels, row + x0, row + Math.min(width, x0 + size), colour);
                }
            }
        }
        buffer.updateBuffer(b -> {
            IntBuffer ints = b.getBuffer();
            ints.clear();
            ints.put(pixels); // every colour is opaque: premultiplied ARGB is plain ARGB
            return null; // all of it changed
        });
        cells.getGraphicsContext2D().drawImage(image, 0, 0);
        drawn.accept(System.nanoTime() - t0);
    }

    /** Places rooms in a grid of blocks and nodes in cells of one size, the largest that fits every room. */
    private void layout(Topology t, int w, int h) {
        laidOut = t;
        width = w;
        height = h;
        cells.setWidth(w);
        cells.setHeight(h);
        labels.setWidth(w);
        labels.setHeight(h);
        List<Topology.Room> rooms = t.rooms();
        int count = Math.max(1, rooms.size());
        int most = 1;
        for (Topology.Room r : rooms) {
            most = Math.max(most, r.nodes().length);
        }
        int bestCell = 0;
        int bestCols = 1;
        for (int bc = 1; bc <= count; bc++) {
            int br = (count + bc - 1) / bc;
            int iw = w / bc - 2 * PAD;
            int ih = h / br - HEADER - PAD;
            int s = largestCell(iw, ih, most);
            if (s > bestCell) {
                bestCell = s;
                bestCols = bc;
            }
        }
        cell = Math.max(1, bestCell);
        blockW = w / bestCols;
        blockH = h / ((count + bestCols - 1) / bestCols);
        int n = t.names().length;
        cellX = new int[n];
        cellY = new int[n];
        java.util.Arrays.fill(cellX, -1);
        roomX = new int[rooms.size()];
        roomY = new int[rooms.size()];
        roomCols = new int[rooms.size()];
        base = new int[w * h];
        pixels = new int[w * h];
        IntBuffer ints = ByteBuffer.allocateDirect(4 * w * h).order(ByteOrder.nativeOrder()).asIntBuffer();
        buffer = new PixelBuffer<>(w, h, ints, PixelFormat.getIntArgbPreInstance());
        image = new WritableImage(buffer);
        java.util.Arrays.fill(base, BACKGROUND);
        GraphicsContext g = labels.getGraphicsContext2D();
        g.clearRect(0, 0, w, h);
        g.setFill(Color.web("#e0e0e0"));
        g.setFont(Font.font(10));
        for (int r = 0; r < rooms.size(); r++) {
            int bx = (r % bestCols) * blockW;
            int by = (r / bestCols) * blockH;
            for (int y = by + 1; y < Math.min(h, by + blockH - 1); y++) {
                java.util.Arrays.fill(base, y * w + bx + 1, y * w + Math.min(w, bx + blockW - 1), ROOM);
            }
            g.fillText(rooms.get(r).name() + " (" + rooms.get(r).nodes().length + ")", bx + PAD, by + HEADER - 3);
            roomX[r] = bx + PAD;
            roomY[r] = by + HEADER;
            int cols = Math.max(1, (blockW - 2 * PAD) / cell);
            roomCols[r] = cols;
            int[] nodes = rooms.get(r).nodes();
            for (int k = 0; k < nodes.length; k++) {
                int x = roomX[r] + (k % cols) * cell;
                int y = roomY[r] + (k / cols) * cell;
                if (x + cell <= w && y + cell <= Math.min(h, by + blockH)) {
                    cellX[nodes[k]] = x;
                    cellY[nodes[k]] = y;
                }
            }
        }
    }

    /** The largest square cell such that {@code nodes} cells fit in {@code w} × {@code h}. */
    static int largestCell(int w, int h, int nodes) {
        int s = 0;
        for (int c = 1; c <= 64; c++) {
            long fit = (long) (w / c) * (h / c);
            if (fit >= nodes) {
                s = c;
            } else {
                break;
            }
        }
        return s;
    }
}

package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import granary.api.event.PolicyInstalled;
import granary.api.model.ManualClock;
import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;

import org.junit.jupiter.api.Test;

/** The simulator samples and keeps the reports of a policy it has never heard of, declared here. */
class ReportSamplerTest {

    /** A unit order whose reports count how often they were read. */
    static final class CountingPolicy implements UnitOrder {
        long reads;

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Long.compare(a.submitTime(), b.submitTime());
        }
    }

    static final PolicyDeclaration COUNTING = PolicyDeclaration.of("counting", CountingPolicy.class)
            .factory(s -> new CountingPolicy())
            .sampledReport("reads", "reads so far", (p, v) -> {
                p.reads++;
                return Report.of(Section.line("total", Cell.of("reads", p.reads)),
                        Section.table("shelves", List.of(Row.of(Cell.bare("shelf", "a"), Cell.of("held", Resources.of(100, 200)),
                                Cell.of("reads", p.reads))), null));
            })
            .report("ledger", "the ledger at the end", (p, v) -> Report.of(Section.table("ledger",
                    List.of(Row.of(Cell.bare("entry", "x"), Cell.of("amount", 1.5), Cell.of("note", null))), "empty")))
            .build();

    @Test
    void tableSectionsBecomeTimeSeriesAndEveryReportIsKept() {
        Engine engine = new Engine(new ManualClock(0), new EngineOptions(List.of("counting"), List.of(), true));
        engine.handle(new PolicyInstalled(new CountingPolicy(), "test"));
        ReportSampler sampler = new ReportSampler(engine.view(), Map.of("counting", COUNTING), List.of("cpu", "mem"));
        sampler.sample(10);
        sampler.sample(20);

        assertEquals("time_s,shelf,held_cpu,held_mem,reads\n10,a,100,200,1\n20,a,100,200,2\n",
                sampler.series().get("shelves").csv());
        Map<String, Map<String, Report>> all = sampler.readAll();
        assertEquals(List.of("reads", "ledger"), List.copyOf(all.get("counting").keySet()));
        assertEquals("entry,amount,note\nx,1.5,\n", sampler.tablesAtEnd(all).get("ledger").csv());
        assertEquals(Map.of(), Map.copyOf(new ReportSampler(engine.view(), Map.of(), List.of("cpu")).readAll()));
    }
}

package granary.planner.table;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import granary.planner.table.model.Draft;
import granary.planner.table.model.DraftJson;
import granary.planner.table.model.TableEffect;

/** The push review's summary: what replacing the article's table with the shipped draft does to each group, hour by hour. */
class TableEffectTest {

    @Test
    void theShippedDraftAgainstTheArticlesTable() {
        Draft article = DraftJson.read(new String(TableEditorViewModelTest.resource("article.json"), StandardCharsets.UTF_8), "a", null);
        Draft draft = DraftJson.read(new String(TableEditorViewModelTest.resource("draft-table.json"), StandardCharsets.UTF_8), "d", null);
        List<String> lines = TableEffect.between(article, draft).stream().map(TableEffect.Change::text).toList();
        assertEquals(List.of(
                "group1 00:00-09:00: 10000/15000 -> 8000/12000",
                "group1 09:00-20:00: 3000/5000 -> 2000/5000",
                "group1 20:00-24:00: 3000/5000 -> nothing",
                "group2 09:00-24:00: 2000/5000 -> 3000/5000",
                "group3 00:00-09:00: 3000/3000 -> 5000/6000",
                "group3 20:00-24:00: nothing -> 2000/3000"), lines);
        assertEquals(List.of(), TableEffect.between(article, article));
    }
}

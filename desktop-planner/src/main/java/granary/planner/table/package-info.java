/**
 * The quota table editor (docs/planner.md; the table is docs/multi-tenancy.md, "The quota table"):
 * {@link granary.planner.table.TableEditorView} with its {@link granary.planner.table.TimelineView}
 * and {@link granary.planner.table.SpansChartView}, over
 * {@link granary.planner.table.TableEditorViewModel}. The draft being drawn and its file format are
 * plain Java in {@code model}; validation is {@code QuotaTable.of} itself, never a copy of its rules.
 */
package granary.planner.table;

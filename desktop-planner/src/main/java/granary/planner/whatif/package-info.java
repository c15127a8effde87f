/**
 * What-if replay (docs/planner.md): a trace replayed through the drafted quota table and through the
 * table in force, with the real policies, shown side by side. {@link granary.planner.whatif.WhatIfService}
 * runs the simulator (no JavaFX), {@link granary.planner.whatif.WhatIfViewModel} holds the form, the
 * progress and the result as properties, {@link granary.planner.whatif.WhatIfView} draws them.
 */
package granary.planner.whatif;

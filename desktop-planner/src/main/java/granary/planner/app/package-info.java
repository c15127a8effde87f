/**
 * The planner's shell: the window, its tabs (one per feature), and the wiring of each feature's view,
 * view model and services (docs/planner.md).
 */
package granary.planner.app;

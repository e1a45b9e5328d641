/**
 * The daemon's --file-root: the jail's resolution core lives in @pincer/shared, where the
 * controller's confinement of task files uses the same code.
 */
export { fileRoot, FileRoot, unanchored } from "@pincer/shared";
export type { Anchored, AnchorOptions, Jail } from "@pincer/shared";

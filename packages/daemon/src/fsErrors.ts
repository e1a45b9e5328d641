/** The table from Node fs errors to typed errors lives in @pincer/shared, where the file root uses it too. */
export { fsError } from "@pincer/shared";

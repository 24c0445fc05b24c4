/** How many previews a cluster shows in Explore. */
export const PREVIEWS_PER_CLUSTER = 10;
/**
 * The order of a cluster's previews and members when no search ranks them (`m` is the media row): the most unique
 * first, ties by id; a frame that repeats an earlier one of its video (a still shot, a black screen) after every other.
 */
export const MOST_UNIQUE_FIRST = 'm.repeat_of_frame IS NOT NULL, m.uniqueness_score DESC NULLS LAST, m.id';

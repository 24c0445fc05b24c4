/** The custom-metadata field folder names go in when labels_from=folder names none (and the dataset declared none). */
export const DEFAULT_LABEL_FIELD = 'label';

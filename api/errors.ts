/** An error whose message is safe to show the caller as `{"detail": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const datasetNotFound = () => new HttpError(404, 'Dataset not found');

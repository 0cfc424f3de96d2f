/** A request the app will not serve, with its HTTP status (a path outside the repository, a credentials file…). */
export class UiRefusal extends Error {
  constructor(readonly status: 400 | 403 | 404 | 405 | 413 | 415, message: string) {
    super(message)
    this.name = 'UiRefusal'
  }
}

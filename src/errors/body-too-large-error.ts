/** An upstream model's answer grew past what the relay buffers. */
export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';

  constructor(readonly limit: number) {
    super(`the upstream answer exceeded ${limit} bytes`);
  }
}

/** An audit was asked to reach an address it must not: the SSRF guard's verdict. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'GEO_ADDRESS_REFUSED';
}

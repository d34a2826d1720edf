/** A local day start that is not on a UTC quarter hour (historic local mean time). */
export class UncuttableZone extends Error {
  override name = 'UncuttableZone';
}

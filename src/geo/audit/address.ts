import ipaddr from 'ipaddr.js';

/**
 * Why an audit may not connect to `ip`, or null when it may. Only globally routable unicast
 * addresses pass: loopback, private (RFC 1918, unique-local), link-local (cloud metadata lives
 * at 169.254.169.254), carrier-grade NAT, multicast, broadcast, unspecified, documentation,
 * benchmarking and other reserved ranges are refused, and so are IPv6 forms that embed an IPv4
 * address (mapped, NAT64, 6to4, Teredo), since they can lead back into the refused ranges.
 */
export function refusalOf(ip: string): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  return range === 'unicast' ? null : `${addr.toString()} is ${RANGE_NAMES[range] ?? `a reserved (${range})`} address`;
}

// ipaddr.js's range names, as a reader of an audit's detail would say them.
const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private',
  uniqueLocal: 'a private (unique-local)',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a carrier-grade NAT',
  multicast: 'a multicast',
  broadcast: 'the broadcast',
  unspecified: 'the unspecified',
  reserved: 'a reserved',
};

import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Where a webhook may be sent. Unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is on, only public unicast
 * addresses are: loopback (127.0.0.0/8, ::1), private (10/8, 172.16/12, 192.168/16, fc00::/7),
 * link-local (169.254/16 — the cloud metadata service at 169.254.169.254 —, fe80::/10), unspecified
 * (0.0.0.0/8, ::), carrier-grade NAT, multicast, broadcast, reserved and documentation ranges, and
 * IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:127.0.0.1`, NAT64, 6to4, Teredo) are
 * refused. The ranges are ipaddr.js's (its `range()` names them; only `unicast` passes). Every
 * spelling of an IPv4 address (`127.1`, `2130706433`, `0x7f000001`) is normalised by the WHATWG URL
 * parser before it gets here, and names are checked by the addresses they resolve to, at delivery
 * time, in the lookup the connection itself uses — so a name that resolved to a public address when
 * the endpoint was registered and to a private one now (DNS rebinding) is refused too.
 */

/** The `code` of the error a refused destination fails with (lookup and connection). */
export const PRIVATE_ADDRESS_CODE = 'WEBHOOK_PRIVATE_ADDRESS';

/**
 * Whether an IP address is one a webhook may not reach unless private networks are allowed.
 * @param address an IPv4 or IPv6 address in any form Node or ipaddr.js reads (brackets allowed)
 * @returns true for anything but a public unicast address (and for text that is not an address)
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return true;
  // process(): an IPv4-mapped IPv6 address (::ffff:7f00:1) becomes the IPv4 address it maps.
  return ipaddr.process(bare).range() !== 'unicast';
}

/** The error a refused address fails with: `code` PRIVATE_ADDRESS_CODE. */
export function privateAddressError(): NodeJS.ErrnoException {
  return Object.assign(new Error('refused: private network address'), { code: PRIVATE_ADDRESS_CODE });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request` / `net.connect` that resolves a name as `dns.lookup` does and fails
 * with PRIVATE_ADDRESS_CODE when any address it resolves to is private (see isPrivateAddress), so
 * the address checked is the address connected to (no gap between check and use).
 */
export function publicOnlyLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((entry) => isPrivateAddress(entry.address))) return callback(privateAddressError(), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * Whether a URL's host is, or resolves to, a private address (the check when an endpoint is
 * registered; deliveries check again through publicOnlyLookup). A name that does not resolve now is
 * not refused here: its deliveries fail as "connection failed" until it resolves to a public address.
 * @param hostname `URL.hostname` (IPv6 in brackets)
 * @returns true when refused
 */
export async function resolvesToPrivateAddress(hostname: string): Promise<boolean> {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return isPrivateAddress(bare);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<LookupAddress[]>((resolve) => {
    timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS);
  });
  try {
    const addresses = await Promise.race([dns.promises.lookup(bare, { all: true, verbatim: true }), timeout]);
    return addresses.some((entry) => isPrivateAddress(entry.address));
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** How long registration waits for a name to resolve, in ms (a slow resolver is checked at delivery). */
const REGISTRATION_LOOKUP_MS = 2_000;

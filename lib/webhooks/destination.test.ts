import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './destination';

describe('webhook destinations', () => {
  it('refuses every non-public address, in IPv4, IPv6 and IPv4-mapped forms', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255', '::1', '[::1]', '::', 'fe80::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1', 'not an address']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets public unicast addresses through', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(address), address).toBe(false);
  });
});

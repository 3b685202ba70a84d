'use client';

import { useSyncExternalStore } from 'react';

const noop = () => () => {};

/**
 * Whether the browser runs on an Apple platform, where the Command key (⌘) takes Ctrl's place in
 * shortcuts. Reads `navigator.userAgentData.platform` where the browser has it, else
 * `navigator.platform`.
 *
 * @param nav the navigator to read (the browser's by default)
 * @returns true for macOS, iOS and iPadOS
 */
export function isApplePlatform(nav: Pick<Navigator, 'platform'> & { userAgentData?: { platform?: string } }): boolean {
  const platform = nav.userAgentData?.platform || nav.platform || '';
  return /mac|iphone|ipad|ipod/i.test(platform);
}

/**
 * The name of the key that goes with Enter in "… + Enter" shortcuts, as the viewer's keyboard
 * labels it: `'⌘'` on Apple platforms, `'Ctrl'` elsewhere and during server rendering (the
 * handlers accept either key everywhere).
 *
 * @returns `'⌘'` or `'Ctrl'`
 */
export function useModifierKeyLabel(): '⌘' | 'Ctrl' {
  return useSyncExternalStore(
    noop,
    () => (isApplePlatform(navigator as Navigator & { userAgentData?: { platform?: string } }) ? '⌘' : 'Ctrl'),
    () => 'Ctrl',
  );
}

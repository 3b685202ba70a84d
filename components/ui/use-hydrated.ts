'use client';

import { useSyncExternalStore } from 'react';

const noop = () => () => {};

/**
 * True once the component runs in the browser after hydration. Used for what the server cannot
 * know (the viewer's time zone) and to keep controls inert until their handlers are attached, so
 * a click or keystroke before hydration is never silently lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noop, () => true, () => false);
}

import type { ComponentProps } from 'react';
import { cn } from './cn';

/** A pulsing placeholder block shown while a page loads. */
export function Skeleton({ className, ...props }: ComponentProps<'div'>) {
  return <div aria-hidden className={cn('animate-pulse rounded-md bg-muted', className)} {...props} />;
}

import { Skeleton } from '@/components/ui/skeleton';

/** Shown while a reviewer's read-only chat loads: the shape of the transcript. */
export default function Loading() {
  return (
    <div className="flex min-h-dvh flex-col" role="status" aria-busy="true" aria-label="Loading chat">
      <div className="flex h-14 items-center gap-2 border-b border-border px-4">
        <Skeleton className="h-5 w-24" />
      </div>
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-4 md:p-6">
        <Skeleton className="h-4 w-36" />
        <Skeleton className="h-6 w-2/3" />
        <Skeleton className="h-4 w-1/2" />
        <Skeleton className="h-10 w-48 self-end rounded-2xl" />
        <Skeleton className="h-16 w-full rounded-md" />
        <Skeleton className="h-10 w-56 self-end rounded-2xl" />
        <Skeleton className="h-12 w-full rounded-md" />
      </div>
    </div>
  );
}

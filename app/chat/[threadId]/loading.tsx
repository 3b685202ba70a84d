import { Skeleton } from '@/components/ui/skeleton';

/** Shown while a thread loads: the shape of the chat, not a spinner. */
export default function Loading() {
  return (
    <div className="flex h-dvh" role="status" aria-busy="true" aria-label="Loading chat">
      <div className="hidden w-72 shrink-0 flex-col gap-2 border-r border-border bg-sidebar p-3 md:flex">
        <Skeleton className="h-8 w-32" />
        <Skeleton className="h-9 w-full" />
        {Array.from({ length: 5 }, (_, index) => (
          <Skeleton key={index} className="h-11 w-full" />
        ))}
      </div>
      <div className="flex min-w-0 flex-1 flex-col">
        <div className="flex h-14 items-center border-b border-border px-4">
          <Skeleton className="h-5 w-48" />
        </div>
        <div className="mx-auto flex w-full max-w-3xl flex-1 flex-col gap-6 px-4 py-6">
          <Skeleton className="h-10 w-48 self-end rounded-2xl" />
          <Skeleton className="h-40 w-full rounded-lg" />
          <Skeleton className="h-10 w-56 self-end rounded-2xl" />
          <Skeleton className="h-24 w-full rounded-lg" />
        </div>
        <div className="mx-auto w-full max-w-3xl px-4 pb-4">
          <Skeleton className="h-14 w-full rounded-xl" />
        </div>
      </div>
    </div>
  );
}

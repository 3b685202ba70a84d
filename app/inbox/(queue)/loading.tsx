import { Skeleton } from '@/components/ui/skeleton';

/** Shown while the inbox loads: rows and a detail pane in outline. */
export default function Loading() {
  return (
    <div className="flex h-dvh flex-col" role="status" aria-busy="true" aria-label="Loading inbox">
      <div className="flex h-14 items-center gap-2 border-b border-border px-4">
        <Skeleton className="h-5 w-24" />
      </div>
      <div className="flex items-center gap-2 border-b border-border px-4 py-2">
        <Skeleton className="h-8 w-56" />
        <Skeleton className="h-9 w-64" />
      </div>
      <div className="flex min-h-0 flex-1">
        <div className="flex w-full flex-col divide-y divide-border lg:w-[26rem] lg:border-r lg:border-border">
          {Array.from({ length: 6 }, (_, index) => (
            <div key={index} className="flex flex-col gap-2 px-4 py-3">
              <Skeleton className="h-4 w-2/3" />
              <Skeleton className="h-3 w-1/2" />
              <Skeleton className="h-3 w-3/4" />
            </div>
          ))}
        </div>
        <div className="hidden flex-1 flex-col gap-4 p-6 lg:flex">
          <Skeleton className="h-6 w-1/2" />
          <Skeleton className="h-24 w-full max-w-3xl" />
          <Skeleton className="h-9 w-48" />
        </div>
      </div>
    </div>
  );
}

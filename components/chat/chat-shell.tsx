'use client';

import { Inbox, Menu, MessageSquarePlus, Signature } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import { ChatView } from './chat-view';
import { ThreadList, type ThreadSummary } from './thread-list';
import type { ChatMessage } from './types';
import { Button } from '@/components/ui/button';
import type { People } from '@/components/ui/describe';
import { Sheet } from '@/components/ui/sheet';

export interface ChatShellProps {
  threadId: string;
  threads: ThreadSummary[];
  initialMessages: ChatMessage[];
  viewer: { id: string; name: string };
  people: People;
}

function NewChatButton() {
  // `/` mints a fresh thread id on the server.
  return (
    <Button asChild variant="outline" className="w-full justify-start">
      <Link href="/" prefetch={false}>
        <MessageSquarePlus aria-hidden /> New chat
      </Link>
    </Button>
  );
}

/** The chat screen: threads on the left (a sheet on small screens), the conversation in the centre. */
export function ChatShell({ threadId, threads, initialMessages, viewer, people }: ChatShellProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const title = threads.find((thread) => thread.id === threadId)?.title || 'New chat';

  return (
    <div className="flex h-dvh">
      <aside className="hidden w-64 shrink-0 flex-col border-r border-border bg-muted/40 md:flex" aria-label="Chats">
        <div className="flex h-14 items-center gap-2 px-4">
          <Signature className="size-5 text-primary" aria-hidden />
          <span className="font-semibold">Countersign</span>
        </div>
        <div className="px-3 pb-3">
          <NewChatButton />
        </div>
        <nav className="min-h-0 flex-1 overflow-y-auto px-2" aria-label="Your chats">
          <ThreadList threads={threads} activeId={threadId} />
        </nav>
        <p className="border-t border-border px-4 py-3 text-xs text-muted-foreground">
          Signed in as <span className="font-medium text-foreground">{viewer.name}</span>
        </p>
      </aside>

      <main className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
          <div className="md:hidden">
            <Sheet
              open={menuOpen}
              onOpenChange={setMenuOpen}
              title="Your chats"
              trigger={
                <Button variant="ghost" size="icon" aria-label="Open chats">
                  <Menu aria-hidden />
                </Button>
              }
            >
              <div className="flex flex-col gap-3 p-3">
                <NewChatButton />
                <nav aria-label="Your chats (menu)">
                  <ThreadList threads={threads} activeId={threadId} onNavigate={() => setMenuOpen(false)} />
                </nav>
              </div>
            </Sheet>
          </div>
          <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">{title}</h1>
          <Button asChild variant="ghost" size="sm">
            <Link href="/inbox">
              <Inbox aria-hidden /> Inbox
            </Link>
          </Button>
        </header>
        <ChatView key={threadId} threadId={threadId} initialMessages={initialMessages} viewerId={viewer.id} people={people} />
      </main>
    </div>
  );
}

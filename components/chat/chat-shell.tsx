'use client';

import { Menu, MessageSquarePlus, Signature } from 'lucide-react';
import Link from 'next/link';
import { useState } from 'react';
import { ChatView } from './chat-view';
import { ThreadList, type ThreadSummary } from './thread-list';
import type { ChatMessage } from './types';
import { Button } from '@/components/ui/button';
import { revealBidi, type People } from '@/lib/present/describe';
import { Sheet } from '@/components/ui/sheet';
import type { Viewer } from '@/components/ui/account-menu';
import { AppNav } from '@/components/ui/app-nav';

export interface ChatAgent {
  id: string;
  name: string;
  description: string;
}

export interface ChatShellProps {
  threadId: string;
  threads: ThreadSummary[];
  initialMessages: ChatMessage[];
  /** The thread's version those messages were read at (lib/store/thread-version.ts); null for a new chat. */
  version: string | null;
  /** A continuation is streaming right now: re-attach to it on load. */
  resumeOnMount: boolean;
  /** The agent this thread talks to, and the agents a new chat may pick. */
  agent: ChatAgent;
  agents: ChatAgent[];
  viewer: Viewer;
  people: People;
}

function NewChatButton({ agents }: { agents: ChatAgent[] }) {
  // `/` mints a fresh thread id on the server; `?agent=` picks who the chat talks to.
  return (
    <div className="flex flex-col gap-1">
      {agents.map((agent, index) => (
        <Button key={agent.id} asChild variant={index === 0 ? 'outline' : 'ghost'} className="w-full justify-start" title={agent.description}>
          <Link href={index === 0 ? '/' : `/?agent=${agent.id}`} prefetch={false} data-testid={`new-chat-${agent.id}`}>
            <MessageSquarePlus aria-hidden /> {index === 0 ? 'New chat' : `New chat with ${agent.name}`}
          </Link>
        </Button>
      ))}
    </div>
  );
}

/** The chat screen: threads on the left (a sheet on small screens), the conversation in the centre. */
export function ChatShell({ threadId, threads, initialMessages, version, resumeOnMount, agent, agents, viewer, people }: ChatShellProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const title = threads.find((thread) => thread.id === threadId)?.title || 'New chat';

  return (
    <div className="flex h-dvh">
      <aside className="hidden w-72 shrink-0 flex-col border-r border-border bg-sidebar md:flex" aria-label="Chats">
        <div className="flex h-14 items-center gap-2 px-4">
          <Signature className="size-5 text-primary" aria-hidden />
          <span className="font-semibold">Countersign</span>
        </div>
        <div className="px-3 pb-3">
          <NewChatButton agents={agents} />
        </div>
        <nav className="min-h-0 flex-1 overflow-y-auto px-2 pb-3" aria-label="Your chats">
          <ThreadList threads={threads} activeId={threadId} />
        </nav>
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
                <NewChatButton agents={agents} />
                <nav aria-label="Your chats (menu)">
                  <ThreadList threads={threads} activeId={threadId} onNavigate={() => setMenuOpen(false)} />
                </nav>
              </div>
            </Sheet>
          </div>
          <h1 data-testid="chat-title" className="min-w-0 flex-1 truncate text-sm font-semibold">
            <bdi>{revealBidi(title)}</bdi>
            <span className="ml-2 font-normal text-muted-foreground" data-testid="chat-agent">
              · {agent.name}
            </span>
          </h1>
          <AppNav viewer={viewer} current="chat" />
        </header>
        <ChatView
          key={threadId}
          threadId={threadId}
          agentId={agent.id}
          initialMessages={initialMessages}
          version={version}
          resumeOnMount={resumeOnMount}
          viewerId={viewer.id}
          people={people}
        />
      </main>
    </div>
  );
}

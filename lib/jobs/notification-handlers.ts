/*
 * Loads every notification sender, so each registers its channel (registerNotificationHandler in
 * queue.ts) in the worker process before jobs run. Add an import per sender module here.
 */
import '@/lib/notify/reviewer-jobs';

export {};

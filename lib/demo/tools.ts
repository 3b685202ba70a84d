import { z } from 'zod';
import { createTool, type Tool } from '@/lib/agent/tool';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { WEATHER } from './weather-data';

/** `DEMO_TOOL_DELAY_MS` makes the side-effecting demo tools take that long (crash tests). */
const toolDelay = () => new Promise((resolve) => setTimeout(resolve, env().DEMO_TOOL_DELAY_MS));

/** Dollars, e.g. "$250.00"; a string (a masked value in email, see describeRedacted) is shown as it is. */
const usd = (value: number | string) =>
  typeof value === 'string' ? value : new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(value);

/**
 * The ops-agent's tools, acting on the seeded demo tables. Source: behaviour §9.
 * @param db Prisma client the tools read and write through
 */
export function createOpsTools(db: PrismaClient): Tool[] {
  const lookupCustomer = createTool({
    id: 'lookup-customer',
    description: 'Look up a customer by id (e.g. cus-1) and list their orders.',
    inputSchema: z.object({ customerId: z.string().min(1).max(64) }),
    describe: ({ customerId }) => ({ title: `Looks up customer ${customerId}`, risk: 'low' }),
    execute: async ({ customerId }) => {
      const customer = await db.customer.findUnique({ where: { id: customerId }, include: { orders: true } });
      if (!customer) return { found: false, message: `No customer ${customerId}.` };
      return {
        found: true,
        customer: { id: customer.id, name: customer.name, email: customer.email, tier: customer.tier },
        orders: customer.orders.map((order) => ({ id: order.id, amount: Number(order.amount), status: order.status })),
        message: `${customer.name} (${customer.tier}) has ${customer.orders.length} ${customer.orders.length === 1 ? 'order' : 'orders'}.`,
      };
    },
  });

  const deleteRecord = createTool({
    id: 'delete-record',
    description: 'Permanently delete a record by id (e.g. rec-42).',
    inputSchema: z.object({ id: z.string().min(1).max(64) }),
    requireApproval: true,
    approvers: 'requester',
    describe: ({ id }) => ({ title: `Deletes record ${id}`, summary: 'The record is removed for good; it cannot be restored.', risk: 'high' }),
    context: async ({ id }) => {
      const record = await db.record.findUnique({ where: { id } });
      if (!record) return [{ label: 'Record', value: `${id} does not exist` }];
      return [
        { label: 'Record title', value: record.title },
        { label: 'Created', value: record.createdAt.toISOString().slice(0, 10) },
      ];
    },
    execute: async ({ id }) => {
      await toolDelay();
      const { count } = await db.record.deleteMany({ where: { id } });
      return count === 1
        ? { deleted: true, id, message: `Record ${id} was deleted.` }
        : { deleted: false, id, message: `Record ${id} does not exist.` };
    },
  });

  const issueRefund = createTool({
    id: 'issue-refund',
    description: 'Refund an amount (in dollars) on an order (e.g. ord-1042).',
    inputSchema: z.object({ orderId: z.string().min(1).max(64), amount: z.number().positive().max(100_000) }),
    requireApproval: ({ amount }) => amount > 100,
    approvers: 'reviewer',
    describe: ({ orderId, amount }) => ({
      title: `Refunds ${usd(amount)} on order ${orderId}`,
      summary: 'Money goes back to the customer’s card; a refund cannot be reversed here.',
      risk: amount > 1_000 ? 'high' : 'medium',
    }),
    context: async ({ orderId, amount }) => {
      const order = await db.order.findUnique({ where: { id: orderId }, include: { customer: true } });
      if (!order) return [{ label: 'Order', value: `${orderId} does not exist` }];
      const total = Number(order.amount);
      const refunded = Number(order.refunded);
      const left = total - refunded;
      return [
        { label: 'Customer', value: `${order.customer.name} (${order.customer.tier})` },
        { label: 'Order total', value: usd(total) },
        { label: 'Already refunded', value: usd(refunded) },
        { label: 'Left to refund', value: amount > left ? `${usd(left)} — less than the ${usd(amount)} asked` : usd(left) },
      ];
    },
    // Refund amounts are customers' financial data: never in an email.
    sensitive: ['amount'],
    execute: async ({ orderId, amount }) => {
      // One conditional UPDATE: never refund more than what is left on the order, even concurrently.
      const [updated] = await db.$queryRaw<{ refunded: string }[]>`
        UPDATE orders SET refunded = refunded + ${amount}, status = 'refunded'
        WHERE id = ${orderId} AND refunded + ${amount} <= amount
        RETURNING refunded::text`;
      if (!updated) {
        const order = await db.order.findUnique({ where: { id: orderId } });
        if (!order) return { refunded: false, message: `No order ${orderId}.` };
        const left = Number(order.amount) - Number(order.refunded);
        return { refunded: false, message: `Refused: only $${left} is left to refund on ${orderId}.` };
      }
      return { refunded: true, orderId, amount, totalRefunded: Number(updated.refunded), message: `Refunded $${amount} on ${orderId}.` };
    },
  });

  const sendEmail = createTool({
    id: 'send-email',
    description: 'Send an email (written to the outbox).',
    inputSchema: z.object({ to: z.email(), subject: z.string().min(1).max(200), body: z.string().min(1).max(5_000) }),
    requireApproval: true,
    describe: ({ to, subject }) => ({ title: `Sends an email to ${to}: “${subject}”`, summary: 'Once sent, it cannot be recalled.', risk: 'medium' }),
    sensitive: ['body'],
    execute: async ({ to, subject, body }) => {
      await toolDelay();
      const email = await db.outboxEmail.create({ data: { id: crypto.randomUUID(), to, subject, body } });
      return { sent: true, id: email.id, message: `Email “${subject}” queued for ${to}.` };
    },
  });

  const getWeather = createTool({
    id: 'get-weather',
    description: 'Current weather for a city. Without a city it asks the user for one.',
    inputSchema: z.object({ city: z.string().min(1).max(100).optional() }),
    suspendSchema: z.object({ message: z.string() }),
    resumeSchema: z.object({ city: z.string().trim().min(1, 'Enter a city').max(100) }),
    describe: ({ city }) => ({ title: city ? `Checks the weather in ${city}` : 'Checks the weather', risk: 'low' }),
    execute: async ({ city }, { agent }) => {
      const wanted = city ?? agent.resumeData?.city;
      if (!wanted) return agent.suspend({ message: 'Which city should I check the weather for?' });
      const weather = WEATHER[wanted.trim().toLowerCase()];
      if (!weather) return { city: wanted, found: false, message: `I have no weather data for ${wanted}.` };
      return { city: wanted, found: true, ...weather, message: `Weather in ${wanted}: ${weather.forecast}, ${weather.temperatureC} °C.` };
    },
  });

  return [lookupCustomer, deleteRecord, issueRefund, sendEmail, getWeather];
}

/**
 * The data-agent's tool (the seed's supervisor example): looks a user up among the customers.
 * @param db Prisma client the tool reads through
 */
export function createDataTools(db: PrismaClient): Tool[] {
  const findUser = createTool({
    id: 'find-user',
    description: 'Find a user (customer) by id, e.g. 12345 or cus-1.',
    inputSchema: z.object({ userId: z.string().min(1).max(64) }),
    requireApproval: true,
    describe: ({ userId }) => ({ title: `Looks up user ${userId}`, summary: 'Reads the user’s name, email and tier.', risk: 'low' }),
    execute: async ({ userId }) => {
      const customer = await db.customer.findUnique({ where: { id: userId } });
      if (!customer) return { found: false, message: `No user ${userId}.` };
      return {
        found: true,
        user: { id: customer.id, name: customer.name, email: customer.email, tier: customer.tier },
        message: `User ${customer.id} is ${customer.name} <${customer.email}> (${customer.tier}).`,
      };
    },
  });
  return [findUser];
}

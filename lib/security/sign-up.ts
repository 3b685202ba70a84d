import 'server-only';
import { z } from 'zod';
import { recordAuditEvent } from '@/lib/audit/events';
import { prisma } from '@/lib/store/db';
import { securitySettings } from './settings';
import { securitySettingsSchema } from './settings-schema';

/**
 * Who may create their own account. The environment (SIGN_UP_ENABLED, SIGN_UP_EMAIL_DOMAINS) gives
 * the default; an admin's choice on /admin/users is stored in `app_settings` (key `sign_up`) and
 * overrides it on every server from the next request on.
 */

const SETTING_KEY = 'sign_up';

/** `enabled`, and the email domains (lower-case, exact match; empty: any domain). */
export const signUpPolicySchema = z.object({
  enabled: z.boolean(),
  domains: z
    .array(z.string().trim().toLowerCase())
    .max(100)
    .superRefine((domains, ctx) => {
      // The same rule as SIGN_UP_EMAIL_DOMAINS in the environment.
      const parsed = securitySettingsSchema.shape.SIGN_UP_EMAIL_DOMAINS.safeParse(domains.join(','));
      if (!parsed.success) ctx.addIssue({ code: 'custom', message: 'each domain must be a domain name, e.g. example.com' });
    }),
});
export type SignUpPolicy = z.infer<typeof signUpPolicySchema>;

/** The policy in force and where it comes from. */
export async function signUpPolicy(): Promise<SignUpPolicy & { source: 'database' | 'environment' }> {
  const row = await prisma().appSetting.findUnique({ where: { key: SETTING_KEY } });
  const stored = row ? signUpPolicySchema.safeParse(row.value) : null;
  if (stored?.success) return { ...stored.data, source: 'database' };
  const { SIGN_UP_ENABLED, SIGN_UP_EMAIL_DOMAINS } = securitySettings();
  return { enabled: SIGN_UP_ENABLED, domains: SIGN_UP_EMAIL_DOMAINS, source: 'environment' };
}

/**
 * Stores an admin's sign-up policy (overriding the environment) and audits the change.
 * @returns the policy now in force
 */
export async function setSignUpPolicy(actor: { id: string; role: string }, policy: SignUpPolicy) {
  const before = await signUpPolicy();
  const value = { enabled: policy.enabled, domains: [...new Set(policy.domains)] };
  await prisma().appSetting.upsert({
    where: { key: SETTING_KEY },
    create: { key: SETTING_KEY, value, updatedBy: actor.id },
    update: { value, updatedBy: actor.id },
  });
  await recordAuditEvent({
    action: 'settings.sign_up_changed',
    actor,
    target: { type: 'setting', id: SETTING_KEY },
    details: { before: { enabled: before.enabled, domains: before.domains }, after: value },
  });
  return signUpPolicy();
}

/**
 * Whether self sign-up accepts `email` under the policy in force.
 * @returns null when allowed, else the error code: SIGN_UP_DISABLED or EMAIL_DOMAIN_NOT_ALLOWED
 */
export async function signUpRefusal(email: string): Promise<'SIGN_UP_DISABLED' | 'EMAIL_DOMAIN_NOT_ALLOWED' | null> {
  const policy = await signUpPolicy();
  if (!policy.enabled) return 'SIGN_UP_DISABLED';
  if (policy.domains.length === 0) return null;
  const domain = email.trim().toLowerCase().split('@').at(-1) ?? '';
  return policy.domains.includes(domain) ? null : 'EMAIL_DOMAIN_NOT_ALLOWED';
}

import { env } from '@/lib/env';
import { securitySettingsSchema, type SecuritySettings } from './settings-schema';

/**
 * The process's security settings, from the app's validated environment (lib/env.ts, checked when
 * the server starts). @throws EnvError when the environment is not valid
 */
export function securitySettings(): SecuritySettings {
  const all = env();
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(securitySettingsSchema.shape)) picked[key] = all[key as keyof typeof all];
  return picked as SecuritySettings;
}

import { ViewTabs } from '@/components/ui/view-tabs';

const TABS = [
  { id: 'password', href: '/settings/password', label: 'Password' },
  { id: 'keys', href: '/settings/keys', label: 'API keys' },
] as const;

/** The account pages, reached from the account link in every page's header: the password and the API keys. */
export function SettingsTabs({ current }: { current: 'password' | 'keys' }) {
  return <ViewTabs label="Account settings" tabs={TABS} current={current} testIdPrefix="settings-tab-" />;
}

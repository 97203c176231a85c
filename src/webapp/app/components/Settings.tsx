/**
 * Personal settings (https://zulip.com/api/update-settings): full name, password change
 * (`old_password` + `new_password`, as Zulip's settings page), and the theme (`color_scheme`:
 * 1 automatic, 2 dark, 3 light). Each section saves on its own and says what happened.
 */
import { useSignal } from '@preact/signals';
import { updateSettings } from '../actions.js';
import { me, panel, theme } from '../state.js';

export function Settings() {
  const name = useSignal(me.value.fullName);
  const oldPassword = useSignal('');
  const newPassword = useSignal('');
  const status = useSignal('');
  const run = (params: Record<string, string | number>, done: string) =>
    updateSettings(params).then(
      () => (status.value = done),
      (e: Error) => (status.value = e.message),
    );
  return (
    <section class="settings" aria-label="Personal settings">
      <h2>Personal settings</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run({ full_name: name.value }, 'Name saved.');
        }}
      >
        <label>
          Full name <input value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
        </label>
        <button type="submit">Save name</button>
      </form>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run({ old_password: oldPassword.value, new_password: newPassword.value }, 'Password changed.').then(() => {
            oldPassword.value = '';
            newPassword.value = '';
          });
        }}
      >
        <label>
          Current password <input type="password" autocomplete="current-password" value={oldPassword.value} onInput={(e) => (oldPassword.value = e.currentTarget.value)} />
        </label>
        <label>
          New password <input type="password" autocomplete="new-password" value={newPassword.value} onInput={(e) => (newPassword.value = e.currentTarget.value)} />
        </label>
        <button type="submit">Change password</button>
      </form>
      <fieldset>
        <legend>Theme</legend>
        <label>
          <input type="radio" name="theme" checked={theme.value === 'light'} onChange={() => void run({ color_scheme: 3 }, 'Theme saved.').then(() => (theme.value = 'light'))} /> Light
        </label>
        <label>
          <input type="radio" name="theme" checked={theme.value === 'dark'} onChange={() => void run({ color_scheme: 2 }, 'Theme saved.').then(() => (theme.value = 'dark'))} /> Dark
        </label>
      </fieldset>
      <p role="status">{status.value}</p>
      <button type="button" onClick={() => (panel.value = 'none')}>
        Close
      </button>
    </section>
  );
}

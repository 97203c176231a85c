/**
 * The channel of a scenario file's `channelSubscribers: N` (bench/README.md, "Scenario files"): on a
 * parley the bench started itself, a channel `bench wide N` whose subscribers are the bench
 * account and N created accounts (`wideN-1@zulip.com`…, made by the owner with `POST /users`).
 * A send there appends a UserMessage row for every subscriber and snapshots grow with them,
 * which the demo's small channels never show (bench/PROFILE.md §9–10).
 */
import { createAccounts, login, subscribe, type ApiCall } from './fanout-accounts.js';

/** Prepared channels by subscriber count, so scenarios (and phases) sharing a count set it up once. */
export class WideChannels {
  private readonly made = new Map<number, Promise<string>>();

  /**
   * @param call how to call the server's API
   * @param owner email of an organization owner, logging in with `password`
   * @param member email of the account the scenarios send as (subscribed too)
   */
  constructor(
    private readonly call: ApiCall,
    private readonly owner: string,
    private readonly password: string,
    private readonly member: string,
  ) {}

  /**
   * Name of a channel with `subscribers` created subscribers plus `member`, created on first use.
   * Throws with the server's answer when a creation, login or subscription fails.
   */
  channel(subscribers: number): Promise<string> {
    let made = this.made.get(subscribers);
    if (made === undefined) {
      made = this.make(subscribers);
      this.made.set(subscribers, made);
    }
    return made;
  }

  private async make(subscribers: number): Promise<string> {
    const admin = await login(this.call, this.owner, this.password);
    const created = await createAccounts(this.call, admin, `wide${subscribers}`, subscribers);
    const name = `bench wide ${subscribers}`;
    // Principals are all ids or all emails (Zulip's `principals`): two calls.
    await subscribe(this.call, admin, name, created.ids);
    await subscribe(this.call, admin, name, [this.member]);
    return name;
  }
}

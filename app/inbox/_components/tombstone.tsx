/**
 * The page of a purged message (§8.2 retention): its title and how it ended, when it was purged,
 * and — if the answer never reached the agent — that the response track ended `expired` (§14.2).
 * Nothing else survived the purge, so nothing else is shown. Plain text only.
 */
import { LocalTime } from "@/components/Clock";
import type { TombstoneView } from "@/lib/inbox/tombstone";
import { ItemCrumbs } from "./item-crumbs";

export function Tombstone({ tomb: t }: { tomb: TombstoneView }) {
  return (
    <main className="item">
      <ItemCrumbs account={t.account} />
      <article className="tombstone" data-testid="tombstone">
        <header className="item-head">
          <div className="item-badges">
            {t.type && <span className={`verb verb-${t.type}`}>{t.type}</span>}
            <span className="status status-purged">purged</span>
          </div>
          <h1 data-testid="item-title">{t.title ?? t.id}</h1>
        </header>
        <dl className="facts">
          {t.status && (
            <div>
              <dt>Outcome</dt>
              <dd data-testid="tombstone-outcome">
                {t.status}
                {t.actor && (
                  <>
                    {" "}
                    by <code>{t.actor}</code>
                  </>
                )}
                {t.resolvedAt && (
                  <>
                    {" "}
                    at <LocalTime iso={t.resolvedAt} />
                  </>
                )}
              </dd>
            </div>
          )}
          {t.deliveryExpiredAt && (
            <div>
              <dt>To the agent</dt>
              <dd data-testid="tombstone-never-reached">
                never reached the agent (expired at <LocalTime iso={t.deliveryExpiredAt} />)
              </dd>
            </div>
          )}
          <div>
            <dt>Purged</dt>
            <dd data-testid="tombstone-purged">
              <LocalTime iso={t.purgedAt} />
            </dd>
          </div>
        </dl>
        <p className="readonly">
          This message was deleted after its retention period; only this summary is kept. Its body, context and the
          answer's value and comment are gone.
        </p>
      </article>
    </main>
  );
}

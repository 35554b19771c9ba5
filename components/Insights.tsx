import Link from "next/link";
import type { InsightsTable } from "@/lib/insights/insights";

/**
 * The insights page body (docs/inbox.md "Insights"): server-rendered SVG charts — each with a title
 * and a description, readable without script — and every number again in a table. The tables are
 * `insightsTables(...)`, the same rows the CSV and JSON exports print.
 */
export function InsightsView({
  tables,
  days,
  base,
  exportBase,
  windowLabel,
}: {
  tables: InsightsTable[];
  days: number;
  /** The page's path with any query but `days` (`?account=acme&` or `?`). */
  base: string;
  exportBase: string;
  windowLabel: string;
}) {
  const table = (id: string) => tables.find((t) => t.id === id);
  const times = tables.filter((t) => t.id.startsWith("by-"));
  const heat = table("heatmap");
  return (
    <>
      <nav className="insights-window" aria-label="Window" data-testid="insights-window">
        {[7, 30].map((d) =>
          d === days ? (
            <strong key={d} aria-current="page" data-testid={`window-${d}`}>
              Last {d} days
            </strong>
          ) : (
            <Link prefetch={false} key={d} href={`${base}days=${d}`} data-testid={`window-${d}`}>
              Last {d} days
            </Link>
          ),
        )}
        <span className="muted">{windowLabel}</span>
        <a className="btn" href={`${exportBase}days=${days}&format=csv`} data-testid="insights-csv" download>
          Export CSV
        </a>
        <a className="btn" href={`${exportBase}days=${days}&format=json`} data-testid="insights-json" download>
          Export JSON
        </a>
      </nav>
      <div className="insights-charts">
        {times.map((t) => (
          <TimeChart key={t.id} table={t} />
        ))}
        {heat && <HeatMap table={heat} />}
      </div>
      {tables.map((t) => (
        <section className="panel" key={t.id}>
          <h2 id={`t-${t.id}`}>{t.title}</h2>
          {t.rows.length === 0 ? (
            <p className="empty">Nothing in this window.</p>
          ) : (
            <table
              className="admin-table insights-table"
              data-testid={`insights-${t.id}`}
              aria-labelledby={`t-${t.id}`}
            >
              <thead>
                <tr>
                  {t.columns.map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {t.rows.map((r) => (
                  <tr key={r[0]}>
                    <th scope="row">{r[0]}</th>
                    {r.slice(1).map((v, i) => (
                      <td key={t.columns[i + 1]}>{v}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ))}
    </>
  );
}

const BAR_H = 18;
const LABEL_W = 150;
const PLOT_W = 300;
/** Room right of the longest bar for its label ("p90 1234.5 s"). */
const LABEL_R = 90;

/** p50 and p90 per row as horizontal bars, on one scale (the largest p90). */
function TimeChart({ table }: { table: InsightsTable }) {
  if (table.rows.length === 0) return null;
  const max = Math.max(1, ...table.rows.map((r) => Number(r[3])));
  const h = table.rows.length * (BAR_H * 2 + 8) + 24;
  const id = `c-${table.id}`;
  return (
    <figure className="insights-chart" data-testid={`chart-${table.id}`}>
      <svg
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        viewBox={`0 0 ${LABEL_W + PLOT_W + LABEL_R} ${h}`}
        width={LABEL_W + PLOT_W + LABEL_R}
        height={h}
      >
        <title id={`${id}-title`}>{table.title}</title>
        <desc id={`${id}-desc`}>{table.rows.map((r) => `${r[0]}: p50 ${r[2]} s, p90 ${r[3]} s`).join("; ")}</desc>
        {table.rows.map((r, i) => {
          const y = i * (BAR_H * 2 + 8);
          const w50 = (Number(r[2]) / max) * PLOT_W;
          const w90 = (Number(r[3]) / max) * PLOT_W;
          return (
            <g key={r[0]}>
              <text x={LABEL_W - 6} y={y + BAR_H + 4} textAnchor="end" fontSize="12">
                {(r[0] ?? "").length > 22 ? `${(r[0] ?? "").slice(0, 21)}…` : r[0]}
              </text>
              <rect x={LABEL_W} y={y} width={w50} height={BAR_H - 2} fill="#2456c9" />
              <text x={LABEL_W + w50 + 4} y={y + BAR_H - 5} fontSize="11">
                p50 {r[2]} s
              </text>
              <rect x={LABEL_W} y={y + BAR_H} width={w90} height={BAR_H - 2} fill="#9db4e8" />
              <text x={LABEL_W + w90 + 4} y={y + BAR_H * 2 - 5} fontSize="11">
                p90 {r[3]} s
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{table.title}</figcaption>
    </figure>
  );
}

const CELL = 16;

/** 7 weekdays × 24 UTC hours, darker for more asks; each cell's count in its tooltip and the table. */
function HeatMap({ table }: { table: InsightsTable }) {
  const max = Math.max(1, ...table.rows.flatMap((r) => r.slice(1).map(Number)));
  const left = 36;
  const top = 16;
  const total = table.rows.reduce((n, r) => n + r.slice(1).reduce((m, v) => m + Number(v), 0), 0);
  return (
    <figure className="insights-chart" data-testid="chart-heatmap">
      <svg
        role="img"
        aria-labelledby="c-heat-title c-heat-desc"
        viewBox={`0 0 ${left + 24 * CELL} ${top + 7 * CELL}`}
        width={left + 24 * CELL}
        height={top + 7 * CELL}
      >
        <title id="c-heat-title">{table.title}</title>
        <desc id="c-heat-desc">
          {`${total} asks by weekday and hour in UTC; the busiest cell has ${max === 1 && total === 0 ? 0 : max}. The table below lists every cell.`}
        </desc>
        {[0, 6, 12, 18].map((hr) => (
          <text key={hr} x={left + hr * CELL} y={top - 4} fontSize="10">
            {String(hr).padStart(2, "0")}
          </text>
        ))}
        {table.rows.map((r, d) => (
          <g key={r[0]}>
            <text x={0} y={top + d * CELL + 12} fontSize="11">
              {r[0]}
            </text>
            {r.slice(1).map((v, hr) => {
              const n = Number(v);
              return (
                <rect
                  key={table.columns[hr + 1]}
                  x={left + hr * CELL}
                  y={top + d * CELL}
                  width={CELL - 1}
                  height={CELL - 1}
                  fill={n === 0 ? "#eef1f6" : "#2456c9"}
                  fillOpacity={n === 0 ? 1 : 0.2 + (0.8 * n) / max}
                >
                  <title>{`${r[0]} ${table.columns[hr + 1]}:00 UTC: ${n}`}</title>
                </rect>
              );
            })}
          </g>
        ))}
      </svg>
      <figcaption>{table.title}</figcaption>
    </figure>
  );
}

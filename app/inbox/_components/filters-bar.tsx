"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";

export interface FacetOption {
  value: string;
  label: string;
  count: number;
}

export interface Facet {
  key: string;
  label: string;
  testId: string;
  options: FacetOption[];
}

const SEARCH_SETTLE_MS = 250;

/**
 * Filters and title search. Every change rewrites the URL (dropping the page cursor), so a filtered
 * view is a link; the server renders the list. The search applies as you type.
 */
export function FiltersBar({ facets, q }: { facets: Facet[]; q: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const [text, setText] = useState(q);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const go = (key: string, value: string) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete("after");
    const qs = next.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const onSearch = (value: string) => {
    setText(value);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => go("q", value.trim()), SEARCH_SETTLE_MS);
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: role=search on the form is the ARIA search landmark; <search> is not in every browser yet
    <form
      className="filters"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        go("q", text.trim());
      }}
    >
      <label className="search">
        <span className="visually-hidden">Search titles</span>
        <input
          type="search"
          data-testid="search"
          placeholder="Search titles  ( / )"
          value={text}
          onChange={(e) => onSearch(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") (e.target as HTMLInputElement).blur();
          }}
          autoComplete="off"
          enterKeyHint="search"
        />
      </label>
      {facets.map((f) => (
        <label key={f.key} className="filter">
          <span className="filter-label">{f.label}</span>
          <select data-testid={f.testId} value={params.get(f.key) ?? ""} onChange={(e) => go(f.key, e.target.value)}>
            <option value="">All</option>
            {f.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label} ({o.count})
              </option>
            ))}
          </select>
        </label>
      ))}
    </form>
  );
}

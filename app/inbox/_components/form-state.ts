import type { RawInput } from "@/lib/inbox/form-values";

/** What the item page's resolve form holds while a person fills it in (shared by its parts). */
export interface FormState {
  comment: string;
  option: string | null;
  /** The free-form answer (§5.2 `allow_edit`) is the chosen one; `freeText` is what was typed. */
  freeForm: boolean;
  freeText: string;
  input: RawInput;
  ticks: boolean[];
}

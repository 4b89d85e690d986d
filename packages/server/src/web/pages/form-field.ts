import { html, type HtmlValue, type SafeHtml } from '../html.js';

/** One text-like input of a form, with its label, an optional hint, and its form's error when that was refused. */
export interface FormField {
  id: string;
  name: string;
  label: string;
  /** Said after the label, quieter: `(optional)`, `(only to create a new account)`. */
  note?: string;
  /** Shown under the input and read with it; its element's id is the field's id + `-hint`. */
  hint?: HtmlValue;
  type?: 'text' | 'password' | 'email' | 'url';
  inputmode?: 'numeric';
  autocomplete?: string;
  /** `none` (with `spellcheck: false`) for names and codes, which a phone's keyboard should not change. */
  autocapitalize?: 'none';
  spellcheck?: false;
  required?: boolean;
  minlength?: number;
  maxlength?: number;
  /** What the form held; left out for a password, which is never sent back. */
  value?: string | undefined;
  /**
   * The id of the form's error message, given when the form was refused: the field is then marked
   * invalid and described by that message (after its hint), so a screen reader says why.
   */
  errorId?: string | undefined;
  /** Where the focus goes on opening the page (the first field after a refusal): no script needed. */
  autofocus?: boolean;
}

/** A field as the forms lay them out: label, input and hint stacked in a `.field` block. */
export function formField(field: FormField): SafeHtml {
  return html`<div class="field">${labelledInput(field)}</div>`;
}

/** Label, input and hint without the `.field` block, for forms that flow their fields (the account page's). */
export function labelledInput(field: FormField): SafeHtml {
  const hintId = `${field.id}-hint`;
  const describedBy = [field.hint ? hintId : undefined, field.errorId].filter(Boolean).join(' ');
  const attributes: [string, string | number | boolean | undefined][] = [
    ['id', field.id],
    ['name', field.name],
    ['type', field.type ?? 'text'],
    ['inputmode', field.inputmode],
    ['autocomplete', field.autocomplete],
    ['autocapitalize', field.autocapitalize],
    ['spellcheck', field.spellcheck === false ? 'false' : undefined],
    ['required', field.required],
    ['minlength', field.minlength],
    ['maxlength', field.maxlength],
    ['value', field.value],
    ['aria-invalid', field.errorId ? 'true' : undefined],
    ['aria-describedby', describedBy || undefined],
    ['autofocus', field.autofocus],
  ];
  return html`<label for="${field.id}">${field.label}${field.note ? html` <span class="muted">${field.note}</span>` : ''}</label>
    <input${attributes.map(([name, value]) => attribute(name, value))} />
    ${field.hint ? html`<span id="${hintId}" class="hint">${field.hint}</span>` : ''}`;
}

/** The message a refused form shows above its fields, which those fields name in `errorId`; nothing when not refused. */
export function formError(id: string, message: string | undefined): SafeHtml | '' {
  return message ? html`<div id="${id}" class="error" role="alert">${message}</div>` : '';
}

/** ` name="value"`, ` name` for a true boolean attribute, nothing for false or undefined. */
function attribute(name: string, value: string | number | boolean | undefined): SafeHtml | '' {
  if (value === undefined || value === false) return '';
  return value === true ? html` ${name}` : html` ${name}="${String(value)}"`;
}

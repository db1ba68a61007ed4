import { useState, type FormEvent } from 'react';
import { CATEGORY_MESSAGES, DEFAULT_CATEGORY, type Category } from '@storefront/domain/catalog.ts';
import { useCategories } from '../../../lib/categories.ts';
import { errorSentence } from '../../../lib/error-message.ts';
import { MoveButtons } from '../../../ui/move-buttons.tsx';
import { useCreateCategory, useDeleteCategory, useMoveCategory, useRenameCategory } from '../api/categories.ts';
import { useAllProducts } from '../api/console-products.ts';
import { LoadState } from './load-state.tsx';
import './console.css';

/**
 * The shop's categories (issue 29 item 3, decision 046): add one, rename it, put them in the
 * shop's order, and remove one no product is in. Remove is offered only where it can succeed;
 * elsewhere it is disabled and says why (the server refuses anyway).
 */
export function CategoriesTab() {
  const categories = useCategories();
  const products = useAllProducts();
  const create = useCreateCategory();
  const move = useMoveCategory();
  const remove = useDeleteCategory();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const list = categories.data ?? [];

  const counts = new Map<string, number>();
  for (const product of products.data?.products ?? []) counts.set(product.category, (counts.get(product.category) ?? 0) + 1);

  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setProblem(CATEGORY_MESSAGES.name);
      return;
    }
    create.mutate(
      { name: trimmed },
      {
        onSuccess: () => {
          setName('');
          setProblem('');
          setAnnouncement(`${trimmed} added.`);
        },
        onError: (error) => setProblem(errorSentence(error, 'Could not add the category.')),
      },
    );
  };

  const moveTo = (category: Category, position: number) =>
    move.mutate(
      { id: category.id, position },
      {
        onSuccess: () => setAnnouncement(`${category.name} moved to place ${position + 1} of ${list.length}.`),
        onError: (error) => setProblem(errorSentence(error, 'Could not move the category.')),
      },
    );

  const removeOne = (category: Category) =>
    remove.mutate(
      { id: category.id },
      { onSuccess: () => setAnnouncement(`${category.name} removed.`), onError: (error) => setProblem(errorSentence(error, 'Could not remove the category.')) },
    );

  if (categories.isPending || categories.isError) return <LoadState query={categories} label="Loading categories…" lines={4} failed="Could not load the categories." />;

  return (
    <div className="console-categories">
      <h2 className="console__title">Categories</h2>
      <p className="console__hint">The shop’s category filter and the release and edit forms list them in this order.</p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      <div role="alert">{problem}</div>
      <ol className="console-categories__list" aria-label="Categories in shop order">
        {list.map((category, index) => {
          const count = counts.get(category.id) ?? 0;
          const why = category.id === DEFAULT_CATEGORY ? CATEGORY_MESSAGES.isDefault : count > 0 ? CATEGORY_MESSAGES.notEmpty(count) : null;
          return (
            <li key={category.id} className="console-category" data-testid="console-category">
              <CategoryName category={category} onProblem={setProblem} onRenamed={(to) => setAnnouncement(`${category.name} renamed to ${to}.`)} />
              <span className="console-category__count">{products.data ? `${count} ${count === 1 ? 'product' : 'products'}` : ''}</span>
              <span className="console-category__actions">
                <MoveButtons name={category.name} index={index} count={list.length} onMove={(by) => moveTo(category, index + by)} />
                <button
                  type="button"
                  className="button button--danger button--small"
                  disabled={why !== null || !products.data || remove.isPending}
                  aria-describedby={why ? `category-why-${category.id}` : undefined}
                  onClick={() => removeOne(category)}
                >
                  Remove <span className="visually-hidden">{category.name}</span>
                </button>
                {why ? (
                  <span id={`category-why-${category.id}`} className="console-category__why">
                    {why}
                  </span>
                ) : null}
              </span>
            </li>
          );
        })}
      </ol>
      <form className="console-categories__add" onSubmit={add} noValidate>
        <label htmlFor="new-category-name">New category</label>
        <input id="new-category-name" value={name} maxLength={40} onChange={(event) => setName(event.target.value)} autoComplete="off" />
        <button type="submit" className="button" disabled={create.isPending}>
          Add category
        </button>
      </form>
    </div>
  );
}

/** A category's name, renamed in place: its field and a Rename button that sends it. */
function CategoryName({ category, onProblem, onRenamed }: { category: Category; onProblem: (text: string) => void; onRenamed: (to: string) => void }) {
  const rename = useRenameCategory();
  const [draft, setDraft] = useState(category.name);
  const inputId = `category-name-${category.id}`;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const to = draft.trim();
    if (!to) return onProblem(CATEGORY_MESSAGES.name);
    if (to === category.name) return;
    rename.mutate({ id: category.id, name: to }, { onSuccess: () => onRenamed(to), onError: (error) => onProblem(errorSentence(error, 'Could not rename the category.')) });
  };
  return (
    <form className="console-category__name" onSubmit={submit} noValidate>
      <label htmlFor={inputId} className="visually-hidden">
        Name of {category.name}
      </label>
      <input id={inputId} value={draft} maxLength={40} onChange={(event) => setDraft(event.target.value)} autoComplete="off" />
      <button type="submit" className="button button--secondary button--small" disabled={rename.isPending || draft.trim() === category.name}>
        Rename <span className="visually-hidden">{category.name}</span>
      </button>
    </form>
  );
}

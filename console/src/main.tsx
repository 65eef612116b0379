import { render } from 'preact';
import { App } from './shell.tsx';
import './styles.css';

const root = document.getElementById('app');
if (root !== null) {
  // index.html shows a line of text until the code arrives (the first paint); the app replaces it.
  root.replaceChildren();
  render(<App />, root);
}

"""Claim splitting of the embedded judge: sentences, clauses, conjunctions, lists."""
import pytest

from capjudge.embedded.claims import split_claims, split_sentences


def test_sentences_split_on_end_punctuation_and_semicolons():
    assert split_claims("A cat was added. The sky is darker! Is the dog gone? The car is red; the bus is blue") == [
        "A cat was added", "The sky is darker", "Is the dog gone", "The car is red", "the bus is blue"]


def test_bullets_and_numbered_lines_are_claims_without_their_markers():
    text = "Differences:\n- a lamp was removed\n* the wall is green\n1. A dog appears\n2) the cup moved left"
    assert split_sentences(text) == ["Differences", "a lamp was removed", "the wall is green", "A dog appears", "the cup moved left"]


def test_two_clauses_joined_by_and_are_two_claims():
    assert split_claims("The girl is smiling, the lamp is off and the window is open") == [
        "The girl is smiling", "the lamp is off", "the window is open"]


@pytest.mark.parametrize("conj", ["but", "while", "whereas"])
def test_contrastive_conjunctions_split(conj):
    assert split_claims(f"The man is sitting {conj} the woman is standing") == ["The man is sitting", "the woman is standing"]


def test_list_of_subjects_shares_the_predicate():
    assert split_claims("A cat, a dog and a bird were added") == ["A cat were added", "a dog were added", "a bird were added"]


def test_clause_without_subject_borrows_the_first_subject():
    assert split_claims("The man raised his arm and smiled") == ["The man raised his arm", "The man smiled"]


def test_adjectives_and_objects_are_not_split_into_claims():
    assert split_claims("On the left, a red and blue kite was added") == ["On the left, a red and blue kite was added"]
    assert split_claims("The man is wearing a hat and a scarf") == ["The man is wearing a hat and a scarf"]


def test_relative_clause_stays_with_its_noun():
    assert split_claims("the cat, which was black, is now white") == ["the cat, which was black, is now white"]


def test_blank_prediction_has_no_claims():
    assert split_claims("   \n ") == []

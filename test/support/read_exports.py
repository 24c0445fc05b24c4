"""Reads an unpacked YOLO or Hugging Face export with the library its users use and prints what it found as JSON
(test/support/exportReaders.ts).

yolo DIR: Roboflow supervision's DetectionDataset.from_yolo (images/, labels/, data.yaml), every image decoded.
hf DIR: Hugging Face datasets' load_dataset("parquet", data_files=...) and load_dataset(DIR) (the dataset card's
configs), every image decoded by the Image feature (Pillow).
yolo-splits DIR: supervision's from_yolo on each split folder (images/<split>, labels/<split>) with data.yaml.
hf-splits DIR: load_dataset(DIR), the card's splits: each split's rows (media_id, label) and the label feature's names.
text DIR: the text of the formats as their readers parse it: data.yaml by PyYAML (Ultralytics' yaml.safe_load), README.md's
front matter by huggingface_hub (the Hub's own parser) and its Markdown body.
"""
import json
import sys
from pathlib import Path


def read_yolo(root: Path) -> dict:
    import supervision as sv

    dataset = sv.DetectionDataset.from_yolo(
        images_directory_path=str(root / "images"),
        annotations_directory_path=str(root / "labels"),
        data_yaml_path=str(root / "data.yaml"),
    )
    images = {}
    for image_path, image, detections in dataset:
        images[Path(image_path).name] = {
            "height": int(image.shape[0]),
            "width": int(image.shape[1]),
            "boxes": [
                {"label": dataset.classes[int(class_id)], "xyxy": [float(v) for v in xyxy]}
                for xyxy, class_id in zip(detections.xyxy, detections.class_id)
            ],
        }
    return {"classes": list(dataset.classes), "images": images}


def read_hf(root: Path) -> dict:
    from datasets import Image, load_dataset

    train = load_dataset("parquet", data_files=str(root / "data" / "train-*.parquet"), split="train")
    by_card = load_dataset(str(root), split="train")
    rows = []
    for row in train:
        image = row["image"]
        rows.append({
            "media_id": row["media_id"],
            "media_type": row["media_type"],
            "image": None if image is None else {"width": image.width, "height": image.height, "mode": image.mode},
            "labels": json.loads(row["labels"]),
            "objects": json.loads(row["objects"]),
            "width": row["width"],
        })
    return {
        "image_feature": isinstance(train.features["image"], Image),
        "features": {name: repr(feature) for name, feature in train.features.items()},
        "rows": rows,
        "card_rows": by_card.num_rows,
        "card_image_feature": isinstance(by_card.features["image"], Image),
    }


def read_yolo_splits(root: Path) -> dict:
    import supervision as sv
    import yaml

    data = yaml.safe_load((root / "data.yaml").read_text(encoding="utf-8"))
    classes, splits = [], {}
    for folder in sorted(p for p in (root / "images").iterdir() if p.is_dir()):
        dataset = sv.DetectionDataset.from_yolo(
            images_directory_path=str(folder),
            annotations_directory_path=str(root / "labels" / folder.name),
            data_yaml_path=str(root / "data.yaml"),
        )
        classes = list(dataset.classes)
        splits[folder.name] = {
            Path(image_path).name: {
                "width": int(image.shape[1]),
                "height": int(image.shape[0]),
                "boxes": [
                    {"label": dataset.classes[int(class_id)], "xyxy": [float(v) for v in xyxy]}
                    for xyxy, class_id in zip(detections.xyxy, detections.class_id)
                ],
            }
            for image_path, image, detections in dataset
        }
    return {"data_yaml": {key: value for key, value in data.items() if key != "names"}, "classes": classes, "splits": splits}


def read_hf_splits(root: Path) -> dict:
    from datasets import ClassLabel, load_dataset

    loaded = load_dataset(str(root))
    result = {}
    for split, dataset in loaded.items():
        label = dataset.features["label"]
        result[split] = {
            "label_feature": {"class_label": isinstance(label, ClassLabel), "names": list(getattr(label, "names", []))},
            "rows": [{"media_id": row["media_id"], "label": row["label"], "image": None if row["image"] is None else list(row["image"].size)} for row in dataset],
        }
    return result


def read_text(root: Path) -> dict:
    import yaml
    from huggingface_hub import DatasetCard

    result = {}
    if (root / "data.yaml").exists():
        result["data_yaml"] = yaml.safe_load((root / "data.yaml").read_text(encoding="utf-8"))
    if (root / "README.md").exists():
        card = DatasetCard.load(root / "README.md")
        result["card"] = {"metadata": card.data.to_dict(), "body": card.text}
    return result


READERS = {"yolo": read_yolo, "hf": read_hf, "text": read_text, "yolo-splits": read_yolo_splits, "hf-splits": read_hf_splits}

if __name__ == "__main__":
    mode, directory = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(READERS[mode](directory)))
